import Crypto
import Foundation

/// A device token: `vst1_` and 43 characters of base64url (32 random bytes).
/// The server stores only its SHA-256 digest — a token has 256 bits of
/// entropy, so a plain digest cannot be searched back, and a stolen table
/// yields no usable token. Tokens travel in `Authorization: Bearer …`.
public enum DeviceToken {
    static let prefix = "vst1_"

    /// A new token from the system's secure random source.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The digest stored for `token`, or nil when it is not shaped like one
    /// (so a malformed header never reaches the database).
    public static func digest(_ token: String) -> [UInt8]? {
        guard token.hasPrefix(prefix), token.utf8.count == prefix.utf8.count + 43,
              token.utf8.dropFirst(prefix.utf8.count).allSatisfy({ byte in
                  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
              }) else { return nil }
        return Array(SHA256.hash(data: Array(token.utf8)))
    }

    /// The token of an `Authorization` header value (`Bearer <token>`).
    public static func fromAuthorization(_ value: String?) -> String? {
        guard let value, value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
    }
}
