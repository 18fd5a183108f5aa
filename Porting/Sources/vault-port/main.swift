import ArgumentParser
import Foundation
import VaultPorting

/// `vault-port PATH…`: rewrites RealmSwift source into VaultKit source.
struct VaultPort: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault-port",
        abstract: "Rewrite RealmSwift source files into VaultKit source, in place.",
        discussion: """
            Exit status: 0 when everything was ported, 1 when something was reported as not \
            portable (what could be ported is still written), 2 on usage or I/O errors. \
            Code that is not ported gets a `// vault port: <reason>` comment above it.
            """
    )

    @Argument(help: "Swift files or directories (searched recursively).")
    var paths: [String]

    @Flag(name: .long, help: "Print a unified diff and write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Print every change and every unportable line as JSON.")
    var json = false

    func runPort() -> Int32 {
        let results: [FilePortResult]
        do {
            results = try FileRunner.run(paths: paths, dryRun: dryRun)
        } catch {
            FileHandle.standardError.write(Data("vault-port: \(error.description)\n".utf8))
            return 2
        }
        if json {
            print(FileRunner.json(of: results, dryRun: dryRun))
        } else {
            if dryRun { print(FileRunner.diff(of: results), terminator: "") }
            for problem in results.flatMap(\.notPortable) {
                FileHandle.standardError.write(Data("\(problem.file):\(problem.line): not ported: \(problem.reason)\n".utf8))
            }
            let modified = results.filter(\.isModified).count
            let changes = results.reduce(0) { $0 + $1.changes.count }
            let verb = dryRun ? "would change" : "changed"
            FileHandle.standardError.write(Data("vault-port: \(verb) \(modified) of \(results.count) files (\(changes) changes)\n".utf8))
        }
        return results.contains { !$0.notPortable.isEmpty } ? 1 : 0
    }

    static func main() {
        let parsed: ParsableCommand
        do {
            parsed = try parseAsRoot()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                print(message)
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(2)
        }
        guard let command = parsed as? VaultPort else {
            // `vault-port help` and `--help` parse into ArgumentParser's own help command.
            print(helpMessage())
            Foundation.exit(0)
        }
        Foundation.exit(command.runPort())
    }
}

VaultPort.main()
