/// The per-run secret in every URL path.
public enum StudioToken {
    /// 32 lower-case hexadecimal characters (128 bits) from the system's random source.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        var text = ""
        for _ in 0..<16 {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }

    /// Whether `candidate` equals `token`, in time that depends on the token's
    /// length only (never on where the two first differ).
    public static func matches(_ candidate: Substring, _ token: String) -> Bool {
        let expected = Array(token.utf8)
        let given = Array(candidate.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in expected.indices {
            let other = index < given.count ? given[index] : 0
            difference |= expected[index] ^ other
        }
        return difference == 0
    }
}
