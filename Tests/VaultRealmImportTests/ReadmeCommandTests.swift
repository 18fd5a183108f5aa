import Foundation
import Testing
import VaultTestSupport

/// The README's `vault` tool table: every example runs as written, in order (the
/// porting tool's and the studio's examples need their separately built packages, and
/// the studio's is a server that runs until stopped: both are left out here; the
/// packages test them).
@Suite("README: the vault tool's examples run as written")
struct ReadmeCommandTests {
    /// The Example cell of each row of the table under "## The `vault` tool".
    static func examples(in readme: String) -> [String] {
        guard let section = readme.range(of: "## The `vault` tool") else { return [] }
        let rest = readme[section.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return rest[..<end].split(separator: "\n").filter { $0.hasPrefix("| `") }.compactMap { row in
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[3].hasPrefix("`"), cells[3].hasSuffix("`") else { return nil }
            return String(cells[3].dropFirst().dropLast())
        }
    }

    @Test func everyExampleRuns() throws {
        let root = ImportFixtures.testRoot.deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = Self.examples(in: readme)
        #expect(commands.count >= 10, "the table was not found")
        let directory = try TemporaryDirectory("readme-cli")
        for name in ["blog-encrypted.realm", "blog-encrypted.key.hex"] {
            try FileManager.default.copyItem(at: ImportFixtures.url(name), to: directory.file(name))
        }
        let binDirectory = try builtExecutable("vault").deletingLastPathComponent().path
        for command in commands where !command.hasPrefix("vault port") && !command.hasPrefix("vault studio") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            process.currentDirectoryURL = directory.url
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = binDirectory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            process.environment = environment
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "`\(command)` exited with \(process.terminationStatus): \(message)")
        }
    }
}
