import Foundation

/// A passphrase that protects key files, held in libsodium guarded memory.
///
/// Read it from a file or standard input, never from a command-line argument
/// (which `ps` shows to every user):
///
/// ```swift
/// let passphrase = try Passphrase(contentsOf: URL(fileURLWithPath: "/run/secrets/vault-passphrase"))
/// let store = try FileKeyStore(directory: keysURL, passphrase: passphrase)
/// ```
public final class Passphrase: Sendable, CustomStringConvertible {
    let secret: SecureBytes

    /// Moves `bytes` (UTF-8) into guarded memory and wipes the caller's array.
    /// - Throws: ``KeyStoreError/corrupt(path:reason:)`` style errors are not
    ///   used here; an empty passphrase throws ``VaultError/invalidKey(_:)``.
    public init(wiping bytes: inout [UInt8]) throws(VaultError) {
        defer { Sodium.wipe(&bytes) }
        guard !bytes.isEmpty else { throw VaultError.invalidKey("the passphrase is empty") }
        var result: Result<SecureBytes, VaultError> = .failure(.invalidKey("empty"))
        bytes.withUnsafeBytes { raw in result = Result { () throws(VaultError) in try SecureBytes(copying: raw) } }
        secret = try result.get()
    }

    /// A passphrase from a string (the string itself cannot be wiped; prefer the file and stdin readers).
    public convenience init(_ text: String) throws(VaultError) {
        var bytes = Array(text.utf8)
        try self.init(wiping: &bytes)
    }

    /// Reads a passphrase file; one trailing newline (`\n` or `\r\n`) is not part of it.
    public convenience init(contentsOf url: URL) throws(VaultError) {
        guard var data = FileManager.default.contents(atPath: url.path) else {
            throw VaultError.io(path: url.path, detail: "cannot read the passphrase file")
        }
        var bytes = [UInt8](data)
        data.withUnsafeMutableBytes { Sodium.wipe($0) }
        Passphrase.trimNewline(&bytes)
        try self.init(wiping: &bytes)
    }

    /// Reads one line from standard input.
    public static func readFromStandardInput() throws(VaultError) -> Passphrase {
        var bytes: [UInt8] = []
        while let byte = readByteFromStandardInput(), byte != UInt8(ascii: "\n") { bytes.append(byte) }
        trimNewline(&bytes)
        return try Passphrase(wiping: &bytes)
    }

    private static func readByteFromStandardInput() -> UInt8? {
        var byte: UInt8 = 0
        return read(0, &byte, 1) == 1 ? byte : nil
    }

    private static func trimNewline(_ bytes: inout [UInt8]) {
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    }

    public var description: String { "Passphrase(redacted)" }
}
