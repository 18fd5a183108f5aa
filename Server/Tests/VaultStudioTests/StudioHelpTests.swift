import Foundation
import Testing

/// `vault-studio --help`, exactly: scripts rely on its spellings.
@Suite("vault-studio --help")
struct StudioHelpTests {
    @Test func help() throws {
        let process = Process()
        process.executableURL = try studioExecutable()
        process.arguments = ["--help"]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text == """
            OVERVIEW: Browse and edit a vault in a local web browser.

            Serves on 127.0.0.1 only. The first line printed is the URL to open; it
            holds a random token. A browser that opens it is sent on to the same page
            without the token and proves itself from then on with a cookie that no
            other site's page can make it send. Stop with Ctrl-C.

            USAGE: vault-studio <vault> [--key-file <path>] [--keystore <directory>] [--key-id <id>] [--passphrase-file <path>] [--port <n>] [--read-only]

            ARGUMENTS:
              <vault>                 The vault file.

            OPTIONS:
              --key-file <path>       A key file (written by `vault keygen --output`).
              --keystore <directory>  A key directory (written by `vault keygen
                                      --keystore`).
              --key-id <id>           The key's identifier in --keystore.
              --passphrase-file <path>
                                      A file holding the key file's passphrase.
              --port <n>              The port on 127.0.0.1 (0 or absent: any free port).
                                      (default: 0)
              --read-only             Open the vault read-only: no edit or delete forms.
              -h, --help              Show help information.


            """)
    }
}
