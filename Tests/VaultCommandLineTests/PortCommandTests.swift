import Foundation
import Testing
import VaultTestSupport

// `vault port` hands its arguments to the vault-port tool (its own package):
// a clear error when the tool is missing; arguments, output and exit status
// passed through when it is there.

@Suite("vault port")
struct PortCommandTests {
    @Test("without the vault-port tool: exit 69 and how to build it")
    func missingTool() throws {
        let directory = try TemporaryDirectory("cli-port-missing")
        let run = try runVault(["port", "--dry-run", "Sources"], environment: ["PATH": directory.url.path, "VAULT_PORT": directory.file("none").path],
                               in: directory.url)
        #expect(run.status == 69)
        #expect(run.error.contains("cd Porting && swift build -c release --product vault-port"))
    }

    @Test("with a tool at $VAULT_PORT: every argument reaches it, its output and exit status come back")
    func forwards() throws {
        let directory = try TemporaryDirectory("cli-port-forward")
        // A real executable standing where vault-port would: it reports what it was given.
        let tool = directory.file("vault-port")
        try "#!/bin/sh\necho \"args: $*\"\nexit 3\n".write(to: tool, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        let run = try runVault(["port", "--dry-run", "--json", "App/Models.swift"], environment: ["PATH": "/usr/bin:/bin", "VAULT_PORT": tool.path],
                               in: directory.url)
        #expect(run.output == "args: --dry-run --json App/Models.swift\n")
        #expect(run.status == 3)
    }
}

// `vault studio` hands its arguments to the vault-studio tool (of the Server package) the same way.
@Suite("vault studio")
struct StudioCommandTests {
    @Test("without the vault-studio tool: exit 69 and how to build it")
    func missingTool() throws {
        let directory = try TemporaryDirectory("cli-studio-missing")
        let run = try runVault(["studio", "x.vault", "--key-file", "k"],
                               environment: ["PATH": directory.url.path, "VAULT_STUDIO": directory.file("none").path], in: directory.url)
        #expect(run.status == 69)
        #expect(run.error.contains("cd Server && swift build -c release --product vault-studio"))
    }

    @Test("with a tool at $VAULT_STUDIO: every argument reaches it, its output and exit status come back")
    func forwards() throws {
        let directory = try TemporaryDirectory("cli-studio-forward")
        let tool = directory.file("vault-studio")
        try "#!/bin/sh\necho \"args: $*\"\nexit 4\n".write(to: tool, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        let run = try runVault(["studio", "app.vault", "--key-file", "k.key", "--read-only"],
                               environment: ["PATH": "/usr/bin:/bin", "VAULT_STUDIO": tool.path], in: directory.url)
        #expect(run.output == "args: app.vault --key-file k.key --read-only\n")
        #expect(run.status == 4)
    }
}
