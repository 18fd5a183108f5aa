import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// vault-bench json-import: the peak memory of `vault import` (a child process, its
// maximum resident set as GNU time reports it) on documents built to be large in one place: an
// unknown top-level member holding a 200 MB array (it must be skipped, not built), one
// list of 19 million integers, one 200 MB string — beside a small document, whose peak
// is the constant every import pays. The target is the largest single value twice over
// plus that constant.

@MainActor func runJSONImportMemoryBenchmark() {
    let scale = option("--scale-mb", default: 200)
    print("\n## JSON import memory (release build: `vault import` as a child process; peak resident set)")
    print("| document | size | largest value | peak | peak − small document's | ÷ largest value | time |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    do {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vault").path
        let keyFile = directory.appendingPathComponent("key").path
        guard spawnMeasured(vault, ["keygen", "--output", keyFile])?.status == 0 else {
            print("vault-bench json-import: cannot run \(vault) keygen (build the vault product first)")
            exit(1)
        }
        let documents = try JSONBenchDocuments(directory: directory, megabytes: scale)
        var baseline = 0
        for (index, document) in documents.all.enumerated() {
            let destination = directory.appendingPathComponent("import-\(index).vault").path
            guard let run = spawnMeasured(vault, ["import", destination, document.url.path, "--key-file", keyFile, "--json"]), run.status == 0 else {
                print("| \(document.name) | import failed | | | | | |")
                continue
            }
            if index == 0 { baseline = run.peakBytes }
            // The same document again, merged into the vault it made (its objects are added again).
            let merge = spawnMeasured(vault, ["import", destination, document.url.path, "--key-file", keyFile, "--json"])
            try? FileManager.default.removeItem(atPath: destination)
            let mib = { (bytes: Int) in String(format: "%.0f MiB", Double(bytes) / 1_048_576) }
            for (label, measured) in [("new vault", run), ("merged", merge)] {
                guard let measured, measured.status == 0 else {
                    print("| \(document.name), \(label) | failed | | | | | |")
                    continue
                }
                let above = measured.peakBytes - baseline
                let ratio = document.largestValue > 0 ? String(format: "%.2f", Double(above) / Double(document.largestValue)) : "–"
                print("| \(document.name), \(label) | \(mib(document.size)) | \(mib(document.largestValue)) | \(mib(measured.peakBytes)) | \(mib(above)) | \(ratio) | \(String(format: "%.1f s", measured.seconds)) |")
            }
        }
    } catch {
        print("vault-bench json-import: \(error)")
        exit(1)
    }
}

/// The documents, written once: small, unknown member, long list, long string.
struct JSONBenchDocuments {
    struct Document {
        let name: String
        let url: URL
        let size: Int
        /// The largest single value's bytes in the document (the skipped member counts 0: it is never built).
        let largestValue: Int
    }

    let all: [Document]

    init(directory: URL, megabytes: Int) throws {
        let bytes = megabytes * 1_000_000
        func classes(_ name: String, _ properties: String, _ objects: String) -> String {
            #"{"schemaVersion":0,"classes":{"\#(name)":{"embedded":false,"primaryKey":null,"properties":[\#(properties)],"objects":[\#(objects)]}}}"#
        }
        let stringProperty = #"{"name":"s","type":"string","optional":false,"collection":null}"#
        let small = classes("S", stringProperty, #"{"s":"hello"}"#)
        var documents = [try Self.write(directory, "small document", [small], largest: 0)]
        // An unknown member holding an array of 1 KB strings, then the small document's classes.
        let chunk = "\"" + String(repeating: "x", count: 1_000) + "\","
        let unknownHead = #"{"comment":["#
        let unknownParts = [unknownHead] + Array(repeating: chunk, count: bytes / chunk.utf8.count) + [#""end"],"# + small.dropFirst()]
        documents.append(try Self.write(directory, "unknown member holding \(megabytes) MB", unknownParts, largest: 0))
        // One object with a list of 19 million integers (per 200 MB of scale).
        let count = 19_000_000 * megabytes / 200
        let listProperty = #"{"name":"values","type":"int","optional":false,"collection":"list"}"#
        var listParts = [String(classes("L", listProperty, "@").split(separator: "@")[0]) + #"{"values":["#]
        var numbers = ""
        var listBytes = 0
        for index in 0..<count {
            numbers += index == 0 ? "" : ","
            numbers += String(index &* 7919 % 10_000_000)
            if numbers.utf8.count > 1 << 20 || index == count - 1 {
                listBytes += numbers.utf8.count
                listParts.append(numbers)
                numbers = ""
            }
        }
        listParts.append("]}" + String(classes("L", listProperty, "@").split(separator: "@")[1]))
        documents.append(try Self.write(directory, "list of \(count) integers", listParts, largest: listBytes))
        // One string of the scale's size.
        let stringParts = [String(classes("S", stringProperty, "@").split(separator: "@")[0]) + #"{"s":""#]
            + Array(repeating: String(repeating: "y", count: 1_000_000), count: megabytes) + ["\"}" + String(classes("S", stringProperty, "@").split(separator: "@")[1])]
        documents.append(try Self.write(directory, "one \(megabytes) MB string", stringParts, largest: bytes))
        all = documents
    }

    private static func write(_ directory: URL, _ name: String, _ parts: [String], largest: Int) throws -> Document {
        let url = directory.appendingPathComponent("\(name.replacingOccurrences(of: " ", with: "-")).json")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        var size = 0
        for part in parts {
            let data = Data(part.utf8)
            size += data.count
            try handle.write(contentsOf: data)
        }
        try handle.close()
        return Document(name: name, url: url, size: size, largestValue: largest)
    }
}

/// Runs `path` with `arguments` (output discarded) under GNU time, and returns its exit
/// status, peak resident set in bytes and wall-clock seconds. GNU time forks the command
/// from its own small process: the peak that `wait4` reports for a child spawned from this
/// (large) process starts at this process's own peak, since the child begins in its memory.
func spawnMeasured(_ path: String, _ arguments: [String]) -> (status: Int32, peakBytes: Int, seconds: Double)? {
    let time = "/usr/bin/time"
    guard FileManager.default.isExecutableFile(atPath: time) else {
        print("vault-bench json-import: needs GNU time at \(time) (apt install time)")
        return nil
    }
    let report = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-time-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: report) }
    var pid: pid_t = 0
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = ([time, "-f", "%M", "-o", report, path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let start = DispatchTime.now()
    guard posix_spawn(&pid, time, &actions, nil, argv, environ) == 0 else { return nil }
    var status: Int32 = 0
    guard waitpid(pid, &status, 0) == pid else { return nil }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    let exited = (status & 0x7F) == 0
    let lines = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: "\n")
    guard let kilobytes = lines.last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else { return nil }
    return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), kilobytes * 1024, seconds)
}
