import Foundation

/// SplitMix64: a small deterministic pseudo-random generator, so that fuzzing and
/// damage tests can be replayed from their seed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The page layout of a Realm file encrypted with Realm's key: one IV-table page, then
/// 64 data pages, repeated; an entry's first 4 bytes are the page's IV counter.
public enum EncryptedRealmLayout {
    /// Whether file position `position` lies in a data page whose IV-table entry says it
    /// was written (IV counter ≠ 0), so that its HMAC covers it.
    public static func isInWrittenDataPage(_ position: Int, of file: [UInt8]) -> Bool {
        let page = position / 4096
        if page % 65 == 0 { return false }  // an IV-table page
        let dataPage = page - page / 65 - 1
        let entry = (dataPage / 64) * 65 * 4096 + (dataPage % 64) * 64
        return file[entry..<entry + 4].contains { $0 != 0 }
    }
}
