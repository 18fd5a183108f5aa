import CSodium

/// One-time libsodium initialisation.
///
/// `sodium_init()` is safe to call from several threads and more than once, but
/// every entry point of the storage core goes through this token so that the
/// call happens before any other libsodium function (libsodium.gitbook.io/doc/usage).
enum Sodium {
    /// Swift runs a global's initialiser once, thread-safely, on first use.
    private static let initialised: Bool = sodium_init() >= 0

    /// Initialises libsodium if needed; throws if the library cannot start
    /// (for example when no system random source is available).
    static func ensureInitialised() throws(VaultError) {
        guard initialised else {
            throw VaultError.cryptoUnavailable("libsodium failed to initialise (sodium_init returned -1)")
        }
    }

    /// Fills `buffer` with bytes from the operating system's CSPRNG.
    static func randomBytes(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }

    /// Returns `count` random bytes.
    static func randomBytes(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randomBytes($0) }
        return bytes
    }

    /// Zeroes memory in a way the optimiser cannot remove (`sodium_memzero`).
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    /// Wipes a byte array in place.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }
}
