import Foundation

/// A failure to read the paths given to the tool or to write a ported file.
public struct PortingIOError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the path.
    public var description: String

    /// Creates an error with a message.
    public init(_ description: String) {
        self.description = description
    }
}

/// Ports `.swift` files on disk: the engine behind `vault-port PATH…`.
public enum FileRunner {
    /// The `.swift` files at `paths`: files as given, directories searched recursively
    /// (skipping hidden folders and `.build`), sorted.
    public static func swiftFiles(at paths: [String]) throws(PortingIOError) -> [String] {
        let manager = FileManager.default
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw PortingIOError("\(path): no such file or directory")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let root = URL(fileURLWithPath: path)
            guard let enumerator = manager.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey],
                                                      options: [.skipsHiddenFiles]) else {
                throw PortingIOError("\(path): cannot list the directory")
            }
            var found: [String] = []
            for case let url as URL in enumerator {
                if url.lastPathComponent == ".build" { enumerator.skipDescendants(); continue }
                if url.pathExtension == "swift" && (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) != true {
                    found.append(url.path)
                }
            }
            files.append(contentsOf: found.sorted())
        }
        var seen: Set<String> = []
        return files.filter { seen.insert($0).inserted }
    }

    /// Reads, ports and (unless `dryRun`) rewrites the files at `paths`.
    ///
    /// All files are ported together, so models declared in one are known in the others.
    /// Only files whose text changed are written.
    public static func run(paths: [String], dryRun: Bool) throws(PortingIOError) -> [FilePortResult] {
        let files = try swiftFiles(at: paths)
        var inputs: [PortInput] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw PortingIOError("\(file): cannot read the file")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw PortingIOError("\(file): not UTF-8 text")
            }
            inputs.append(PortInput(file: file, text: text))
        }
        let results = Porter.port(inputs)
        if !dryRun {
            for result in results where result.isModified {
                do {
                    try Data(result.ported.utf8).write(to: URL(fileURLWithPath: result.file), options: .atomic)
                } catch {
                    throw PortingIOError("\(result.file): cannot write the file (\(error.localizedDescription))")
                }
            }
        }
        return results
    }

    /// The unified diff of every modified file (what `--dry-run` prints).
    public static func diff(of results: [FilePortResult]) -> String {
        results.filter(\.isModified).map {
            UnifiedDiff.diff(old: $0.original, new: $0.ported, oldName: $0.file, newName: $0.file)
        }.joined()
    }

    /// The `--json` document for `results`, pretty-printed with sorted keys.
    public static func json(of results: [FilePortResult], dryRun: Bool) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(JSONReport(results: results, dryRun: dryRun)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
