// The two primitives Realm's file encryption needs (realm-core
// `util/encrypted_file_mapping.cpp`, `util/sha_crypto.cpp`):
// AES-256-CBC without padding over one 4096-byte page, and HMAC-SHA224.
//
// Which library, and why: on Apple platforms CommonCrypto (CCCrypt with
// kCCAlgorithmAES and no padding option; CCHmac with kCCHmacAlgSHA224), as
// Realm itself uses there; elsewhere the system OpenSSL libcrypto through the
// COpenSSL system-library target (EVP_aes_256_cbc with padding disabled;
// HMAC with EVP_sha224), as Realm uses on Linux and Android. swift-crypto is
// not used because it offers no SHA-224, and no cipher or hash is written by hand.
#if canImport(CommonCrypto)
import CommonCrypto
#else
import COpenSSL
#endif

/// Decrypts and authenticates pages of an encrypted Realm file with one 64-byte key:
/// bytes 0–31 are the AES-256 key, bytes 32–63 the HMAC-SHA224 key.
final class PageCipher: @unchecked Sendable {
    static let pageSize = 4096
    static let hmacSize = 28

    private let aesKey: [UInt8]
    private let hmacKey: [UInt8]

    init(key: [UInt8]) {
        aesKey = Array(key[0..<32])
        hmacKey = Array(key[32..<64])
    }

    /// HMAC-SHA224 of one 4096-byte page of ciphertext.
    func hmac(of page: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        #if canImport(CommonCrypto)
        hmacKey.withUnsafeBytes { key in
            digest.withUnsafeMutableBytes { out in
                CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA224), key.baseAddress, key.count,
                       page.baseAddress, page.count, out.baseAddress)
            }
        }
        #else
        var length: UInt32 = 0
        hmacKey.withUnsafeBytes { key in
            digest.withUnsafeMutableBytes { out in
                _ = HMAC(EVP_sha224(), key.baseAddress, Int32(key.count),
                         page.baseAddress?.assumingMemoryBound(to: UInt8.self), page.count,
                         out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
            }
        }
        #endif
        return Array(digest[0..<Self.hmacSize])
    }

    /// Decrypts one 4096-byte page with AES-256-CBC, no padding, into `output`.
    /// Returns false if the library reports a failure.
    func decrypt(page: UnsafeRawBufferPointer, iv: [UInt8], into output: UnsafeMutableRawBufferPointer) -> Bool {
        guard page.count == Self.pageSize, output.count >= Self.pageSize, iv.count == 16 else { return false }
        #if canImport(CommonCrypto)
        var moved = 0
        let status = aesKey.withUnsafeBytes { key in
            iv.withUnsafeBytes { ivBytes in
                CCCrypt(CCOperation(kCCDecrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(0),
                        key.baseAddress, key.count, ivBytes.baseAddress,
                        page.baseAddress, page.count, output.baseAddress, output.count, &moved)
            }
        }
        return status == CCCryptorStatus(kCCSuccess) && moved == Self.pageSize
        #else
        guard let context = EVP_CIPHER_CTX_new() else { return false }
        defer { EVP_CIPHER_CTX_free(context) }
        let initialized = aesKey.withUnsafeBytes { key in
            iv.withUnsafeBytes { ivBytes in
                EVP_DecryptInit_ex(context, EVP_aes_256_cbc(), nil,
                                   key.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                   ivBytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard initialized == 1, EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { return false }
        guard let input = page.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        var written: Int32 = 0
        guard EVP_DecryptUpdate(context, out, &written, input, Int32(page.count)) == 1 else { return false }
        var finalWritten: Int32 = 0
        guard EVP_DecryptFinal_ex(context, out + Int(written), &finalWritten) == 1 else { return false }
        return Int(written) + Int(finalWritten) == Self.pageSize
        #endif
    }
}
