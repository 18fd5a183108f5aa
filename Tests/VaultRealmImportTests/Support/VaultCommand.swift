import Foundation
import VaultTestSupport

/// One run of the built `vault` tool, as a user runs it.
struct VaultRun {
    let status: Int32
    let output: String
    let error: String
}

/// Runs the built `vault` tool with `arguments` and waits for it.
func runVault(_ arguments: [String]) throws -> VaultRun {
    let process = Process()
    process.executableURL = try builtExecutable("vault")
    process.arguments = arguments
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return VaultRun(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
                    error: String(decoding: errData, as: UTF8.self))
}
