import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``KeyStore`` backed by a directory of key files (`<identifier>.vaultkey`).
///
/// - Files use the versioned key-file format (SECURITY.md, "Key files"), with
///   a checksum, optionally sealed with a passphrase (Argon2id, then
///   XChaCha20-Poly1305).
/// - Writes are atomic (temporary file, fsync, link into place, directory
///   fsync); files are created with mode 0600 and the directory with 0700.
/// - Like OpenSSH, it refuses to load a key file that group or others can
///   read or write, and says which `chmod` fixes it.
///
/// ```swift
/// let store = try FileKeyStore(directory: keys, passphrase: try Passphrase(contentsOf: passphraseFile))
/// try store.storeKey(try MasterKey.generate(), identifier: "main")
/// let key = try store.loadKey(identifier: "main")
/// ```
public final class FileKeyStore: KeyStore {
    /// The directory holding the key files.
    public let directory: URL
    /// The passphrase that seals new key files and opens sealed ones; `nil` for plain key files.
    public let passphrase: Passphrase?
    /// The Argon2id cost for new passphrase-sealed files.
    public let passphraseCost: PassphraseCost

    /// The file-name extension of key files.
    public static let fileExtension = "vaultkey"

    /// Opens (and creates, with mode 0700, if missing) a key directory.
    public init(directory: URL, passphrase: Passphrase? = nil, passphraseCost: PassphraseCost = .moderate) throws(KeyStoreError) {
        self.directory = directory.standardizedFileURL
        self.passphrase = passphrase
        self.passphraseCost = passphraseCost
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: self.directory.path, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw KeyStoreError.io(path: self.directory.path, detail: "cannot create the key directory (\(error.localizedDescription))")
            }
        } else if !isDirectory.boolValue {
            throw KeyStoreError.io(path: self.directory.path, detail: "not a directory")
        }
    }

    /// The file of the key named `identifier`.
    public func fileURL(for identifier: String) throws(KeyStoreError) -> URL {
        try Self.validate(identifier)
        return directory.appendingPathComponent("\(identifier).\(Self.fileExtension)")
    }

    static func validate(_ identifier: String) throws(KeyStoreError) {
        guard !identifier.isEmpty, identifier.utf8.count <= 128 else {
            throw KeyStoreError.invalidIdentifier(identifier, reason: "use 1 to 128 characters")
        }
        guard !identifier.hasPrefix(".") else {
            throw KeyStoreError.invalidIdentifier(identifier, reason: "it must not start with a dot")
        }
        let allowed = identifier.unicodeScalars.allSatisfy { scalar in
            (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))) || scalar == "." || scalar == "-" || scalar == "_"
        }
        guard allowed else {
            throw KeyStoreError.invalidIdentifier(identifier, reason: "use only ASCII letters, digits, '.', '-' and '_'")
        }
    }

    // MARK: KeyStore

    public func loadKey(identifier: String) throws(KeyStoreError) -> MasterKey {
        let url = try fileURL(for: identifier)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw KeyStoreError.keyNotFound(identifier: identifier, path: url.path)
        }
        let file = try Self.readKeyFile(at: url, passphrase: passphrase)
        guard file.identifier == identifier else {
            throw KeyStoreError.identifierMismatch(path: url.path, expected: identifier, found: file.identifier)
        }
        return file.key
    }

    public func storeKey(_ key: MasterKey, identifier: String) throws(KeyStoreError) {
        let url = try fileURL(for: identifier)
        let file = KeyFile(identifier: identifier, created: Date(), key: key)
        var bytes: [UInt8]
        do {
            bytes = try file.encoded(passphrase: passphrase, cost: passphraseCost)
        } catch {
            throw KeyStoreError.io(path: url.path, detail: "\(error)")
        }
        defer { Sodium.wipe(&bytes) }
        try Self.writeAtomically(bytes, to: url, identifier: identifier)
    }

    public func deleteKey(identifier: String) throws(KeyStoreError) {
        let url = try fileURL(for: identifier)
        guard unlink(url.path) == 0 else {
            if errno == ENOENT { throw KeyStoreError.keyNotFound(identifier: identifier, path: url.path) }
            throw KeyStoreError.io(path: url.path, detail: String(cString: strerror(errno)))
        }
        VaultCreation.syncDirectory(directory.path)
    }

    public func keyIdentifiers() throws(KeyStoreError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".\(Self.fileExtension)") && !$0.hasPrefix(".") }
                .map { String($0.dropLast(Self.fileExtension.count + 1)) }
                .sorted()
        } catch {
            throw KeyStoreError.io(path: directory.path, detail: error.localizedDescription)
        }
    }

    // MARK: Files

    /// Reads one key file (any identifier), after checking its permissions.
    public static func readKeyFile(at url: URL, passphrase: Passphrase?) throws(KeyStoreError) -> (identifier: String, created: Date, key: MasterKey) {
        let path = url.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { throw KeyStoreError.keyNotFound(identifier: url.deletingPathExtension().lastPathComponent, path: path) }
            throw KeyStoreError.io(path: path, detail: String(cString: strerror(errno)))
        }
        // The type and size first: a directory, a FIFO or a huge file is not read (or waited on) at all.
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw KeyStoreError.io(path: path, detail: "is a directory, not a key file")
        default: throw KeyStoreError.io(path: path, detail: "is not a regular file (a pipe, device or socket), so it cannot be a key file")
        }
        guard status.st_size <= Self.maximumKeyFileBytes else {
            throw KeyStoreError.io(path: path, detail: "is \(status.st_size) bytes long; key files are under \(Self.maximumKeyFileBytes) bytes, so this is not one")
        }
        let mode = UInt16(status.st_mode & 0o7777)
        guard mode & 0o077 == 0 else { throw KeyStoreError.insecurePermissions(path: path, mode: mode) }
        var bytes = try readBounded(path)
        defer { Sodium.wipe(&bytes) }
        let file = try KeyFile.decode(bytes, path: path, passphrase: passphrase)
        return (file.identifier, file.created, file.key)
    }

    /// Far above any key file (a few hundred bytes), far below anything that costs memory to read.
    static let maximumKeyFileBytes = 64 * 1024

    /// Reads at most ``maximumKeyFileBytes`` (+1, to notice a file that grew), without blocking.
    private static func readBounded(_ path: String) throws(KeyStoreError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw KeyStoreError.io(path: path, detail: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: maximumKeyFileBytes + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in read(descriptor, raw.baseAddress.map { $0 + total }, raw.count - total) }
            if count < 0 {
                if errno == EINTR { continue }
                Sodium.wipe(&bytes)
                throw KeyStoreError.io(path: path, detail: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            total += count
        }
        guard total <= maximumKeyFileBytes else {
            Sodium.wipe(&bytes)
            throw KeyStoreError.io(path: path, detail: "is longer than \(maximumKeyFileBytes) bytes, so it is not a key file")
        }
        let result = Array(bytes[0..<total])
        Sodium.wipe(&bytes)
        return result
    }

    /// Writes a new key file: temporary file (0600, O_EXCL), fsync, `link` into
    /// place (which never replaces an existing key), directory fsync.
    static func writeAtomically(_ bytes: [UInt8], to url: URL, identifier: String) throws(KeyStoreError) {
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw KeyStoreError.io(path: url.path, detail: "the directory \(directory) does not exist")
        }
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-" + Sodium.randomBytes(count: 6).map { String(format: "%02x", $0) }.joined()
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw KeyStoreError.io(path: temporary, detail: String(cString: strerror(errno))) }
        defer { unlink(temporary) }
        var written = 0
        let writeFailed: Bool = bytes.withUnsafeBytes { raw in
            while written < raw.count {
                guard let base = raw.baseAddress else { return true }
                let result = write(descriptor, base + written, raw.count - written)
                if result <= 0 { return true }
                written += result
            }
            return false
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard !writeFailed, synced else { throw KeyStoreError.io(path: temporary, detail: "cannot write the key file") }
        guard link(temporary, url.path) == 0 else {
            if errno == EEXIST { throw KeyStoreError.keyExists(identifier: identifier, path: url.path) }
            throw KeyStoreError.io(path: url.path, detail: String(cString: strerror(errno)))
        }
        VaultCreation.syncDirectory(directory)
    }

    /// Writes a key file at an explicit path (for `vault keygen --output`).
    public static func writeKeyFile(_ key: MasterKey, identifier: String, to url: URL, passphrase: Passphrase?, cost: PassphraseCost = .moderate) throws(KeyStoreError) {
        try validate(identifier)
        var bytes: [UInt8]
        do {
            bytes = try KeyFile(identifier: identifier, created: Date(), key: key).encoded(passphrase: passphrase, cost: cost)
        } catch {
            throw KeyStoreError.io(path: url.path, detail: "\(error)")
        }
        defer { Sodium.wipe(&bytes) }
        try writeAtomically(bytes, to: url, identifier: identifier)
    }
}

extension MasterKey {
    /// Loads a master key as the `vault` tools take it: from a key file (written by
    /// `vault keygen --output`), or by identifier from a key directory (`--keystore`),
    /// unsealing it with `passphrase` when it is passphrase-protected.
    /// - Throws: ``KeyStoreError`` (a missing, damaged or unsafe key file, a wrong
    ///   passphrase), or ``VaultError/invalidConfiguration(_:)`` when neither source is given.
    public static func load(keyFile: URL?, keyDirectory: URL?, identifier: String?, passphrase: Passphrase?) throws -> MasterKey {
        if let keyFile {
            return try FileKeyStore.readKeyFile(at: keyFile, passphrase: passphrase).key
        }
        guard let keyDirectory, let identifier else {
            throw VaultError.invalidConfiguration("give a key file, or a key directory and the key's identifier")
        }
        return try FileKeyStore(directory: keyDirectory, passphrase: passphrase).loadKey(identifier: identifier)
    }
}

