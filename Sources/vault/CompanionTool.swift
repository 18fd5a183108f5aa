import ArgumentParser
import Foundation

/// A tool of this repository built in a package of its own — `vault-port` (swift-syntax),
/// `vault-studio` (Hummingbird) — so that apps depending on VaultKit never build those
/// dependencies. A `vault` subcommand finds it and runs it with the arguments it was given.
struct CompanionTool {
    /// The executable's name.
    let name: String
    /// The environment variable that names its path, checked first.
    let environmentVariable: String
    /// The package folder it is built in (`cd <folder> && swift build -c release --product <name>`).
    let packageFolder: String
    /// Why it lives apart (for the "not installed" message).
    let reason: String

    /// EX_UNAVAILABLE (sysexits.h): the tool cannot be found or started.
    static let unavailable: Int32 = 69

    /// `$<environmentVariable>`, then the tool beside this executable, then on `$PATH`.
    func locate() -> URL? {
        let environment = ProcessInfo.processInfo.environment
        let fileManager = FileManager.default
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            return fileManager.isExecutableFile(atPath: explicit) ? URL(fileURLWithPath: explicit) : nil
        }
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name))
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            candidates.append(URL(fileURLWithPath: String(directory)).appendingPathComponent(name))
        }
        return candidates.first { fileManager.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the tool with `arguments` (standard streams inherited) and exits with its status.
    func run(_ arguments: [String], for subcommand: String) throws {
        guard let tool = locate() else {
            FileHandle.standardError.write(Data("""
                vault: error: vault \(subcommand) needs the \(name) tool, which is not installed. \
                It lives in its own package so that apps never build \(reason): run \
                `cd \(packageFolder) && swift build -c release --product \(name)`, then put \(packageFolder)/.build/release/\(name) \
                on your PATH or set \(environmentVariable) to its path.\n
                """.utf8))
            throw ExitCode(Self.unavailable)
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            FileHandle.standardError.write(Data("vault: error: could not run \(tool.path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(Self.unavailable)
        }
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
    }
}
