import ArgumentParser
import Foundation

/// `vault port PATH…`: rewrites Realm source into VaultKit source by running the
/// `vault-port` tool. That tool is built on swift-syntax and lives in its own
/// package (`Porting/`), so that apps depending on VaultKit never build
/// swift-syntax; this subcommand finds it and hands it every argument.
struct PortCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port",
        abstract: "Rewrite RealmSwift source (legacy @objc dynamic models included) into VaultKit source.",
        discussion: """
        Runs the vault-port tool with the same arguments (see `vault port --help`
        once it is installed). It is found through $VAULT_PORT, then beside this
        `vault` executable, then on $PATH. Build it with:
            cd Porting && swift build -c release
        Exit code 69 when the tool cannot be found.
        """
    )

    @Argument(parsing: .captureForPassthrough, help: "The paths and options for vault-port (--dry-run, --json, …).")
    var arguments: [String] = []

    /// EX_UNAVAILABLE (sysexits.h).
    static let toolUnavailable: Int32 = 69

    func run() throws {
        guard let tool = Self.locateTool() else {
            FileHandle.standardError.write(Data("""
                vault: error: vault port needs the vault-port tool, which is not installed. \
                It lives in its own package so that apps never build swift-syntax: run \
                `cd Porting && swift build -c release`, then put Porting/.build/release/vault-port \
                on your PATH or set VAULT_PORT to its path.\n
                """.utf8))
            throw ExitCode(Self.toolUnavailable)
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            FileHandle.standardError.write(Data("vault: error: could not run \(tool.path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(Self.toolUnavailable)
        }
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
    }

    /// `$VAULT_PORT`, then `vault-port` beside this executable, then on `$PATH`.
    static func locateTool() -> URL? {
        let environment = ProcessInfo.processInfo.environment
        let fileManager = FileManager.default
        if let explicit = environment["VAULT_PORT"], !explicit.isEmpty {
            return fileManager.isExecutableFile(atPath: explicit) ? URL(fileURLWithPath: explicit) : nil
        }
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("vault-port"))
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            candidates.append(URL(fileURLWithPath: String(directory)).appendingPathComponent("vault-port"))
        }
        return candidates.first { fileManager.isExecutableFile(atPath: $0.path) }
    }
}
