import Foundation
import VaultPorting

/// Ports `source` on its own and returns the new text.
func ported(_ source: String) -> String {
    Porter.port(source: source, file: "Test.swift").ported
}

/// A temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("vault-port-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func write(_ text: String, to name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    func read(_ name: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The package root (`/work/main/Porting`), from this file's path.
let portingPackageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs the built `vault-port` executable; returns its exit status and outputs.
func runVaultPort(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = portingPackageRoot.appendingPathComponent(".build/debug/vault-port")
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}
