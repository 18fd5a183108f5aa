import Foundation
import Testing
import VaultPorting

/// The legacy app with its two unportable spots fixed by hand, as a user would after a first run.
let portableLegacyApp = LegacyApp.source
    .replacingOccurrences(of: "for person in people {", with: "for person: Person in people {")
    .replacingOccurrences(of: "return \"Tag\"", with: "return \"LegacyTag\"")

@Suite("End to end")
struct EndToEndTests {
    @Test func aFixedUpAppPortsCompletely() {
        let result = Porter.port(source: portableLegacyApp, file: "App.swift")
        #expect(result.notPortable.isEmpty)
        #expect(result.ported.contains("total += person.age ?? 0"))
        #expect(!result.ported.contains("className"))
        #expect(!result.ported.contains("Realm"))
    }

    /// Builds the ported app against VaultKit (the repository root, found from this file's path)
    /// in a temporary package, in Swift 6 mode. It compiles all of VaultKit (about a minute on
    /// two cores); set `VAULT_PORT_SKIP_E2E=1` to skip it.
    @Test(.disabled(if: ProcessInfo.processInfo.environment["VAULT_PORT_SKIP_E2E"] == "1"), .timeLimit(.minutes(15)))
    func portedAppBuildsAgainstVaultKit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let vaultKit = portingPackageRoot.deletingLastPathComponent().path
        // A path dependency's package identity is its folder's name, whatever the clone is called.
        let identity = URL(fileURLWithPath: vaultKit).lastPathComponent.lowercased()
        _ = try directory.write("""
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(
                name: "PortedApp",
                platforms: [.macOS(.v13)],
                dependencies: [.package(path: "\(vaultKit)")],
                targets: [.target(name: "App", dependencies: [.product(name: "VaultKit", package: "\(identity)")])],
                swiftLanguageModes: [.v6]
            )
            """, to: "Package.swift")
        let app = try directory.write(portableLegacyApp, to: "Sources/App/App.swift")
        let port = try runVaultPort([app.path])
        #expect(port.status == 0)
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = ["swift", "build", "--package-path", directory.url.path]
        let output = Pipe()
        build.standardOutput = output
        build.standardError = output
        try build.run()
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        build.waitUntilExit()
        // SwiftPM leaves lock files named after the build folder in the temporary directory.
        let temporary = FileManager.default.temporaryDirectory
        let name = directory.url.lastPathComponent
        for file in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where file.contains(name) {
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(file))
        }
        #expect(build.terminationStatus == 0, "\(log.suffix(4000))")
    }
}
