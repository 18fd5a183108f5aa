import Foundation
import Testing
import RealmFileReader
import VaultTestSupport

/// Wrong keys, foreign files, truncated and damaged files: always a `RealmFileError`,
/// never a crash or a hang.
@Suite("Bad input")
struct BadInputTests {
    // MARK: Keys

    @Test func wrongKeyIsDetectedAtOpen() throws {
        var key = try Fixtures.blogKey()
        key[17] ^= 0x01
        #expect(throws: RealmFileError.wrongEncryptionKey) {
            try RealmFile(url: Fixtures.url("blog-encrypted.realm"), encryptionKey: key)
        }
        var hmacKey = try Fixtures.blogKey()
        hmacKey[40] ^= 0x80
        #expect(throws: RealmFileError.wrongEncryptionKey) {
            try RealmFile(url: Fixtures.url("blog-encrypted.realm"), encryptionKey: hmacKey)
        }
    }

    @Test func missingKeyIsExplained() throws {
        #expect(throws: RealmFileError.encryptionKeyRequired) {
            try RealmFile(url: Fixtures.url("blog-encrypted.realm"))
        }
        #expect(RealmFileError.encryptionKeyRequired.description.contains("encryption key"))
    }

    @Test func keyOfTheWrongLength() throws {
        let key = try Fixtures.blogKey()
        for length in [0, 32, 63, 65, 128] {
            let wrong = Array((key + key).prefix(length))
            #expect(throws: RealmFileError.invalidKeyLength(length)) {
                try RealmFile(url: Fixtures.url("blog-encrypted.realm"), encryptionKey: wrong)
            }
        }
    }

    @Test func keyForAPlainFile() throws {
        #expect(throws: RealmFileError.fileNotEncrypted) {
            try RealmFile(url: Fixtures.url("blog.realm"), encryptionKey: try Fixtures.blogKey())
        }
    }

    @Test func messagesNeverContainKeyBytes() throws {
        var key = try Fixtures.blogKey()
        key[0] ^= 0xFF
        do {
            _ = try RealmFile(url: Fixtures.url("blog-encrypted.realm"), encryptionKey: key)
            Issue.record("a wrong key opened the file")
        } catch {
            let hex = key.map { String(format: "%02x", $0) }.joined()
            #expect(!error.description.contains(hex.prefix(16)))
        }
    }

    // MARK: Foreign files

    @Test func foreignFiles() throws {
        try withTemporaryDirectory { directory in
            var generator = SplitMix64(seed: 7)
            let random = (0..<5000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let randomPages = (0..<8192).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var sqlite = Array("SQLite format 3\u{0}".utf8)
            sqlite += [UInt8](repeating: 0, count: 4096 - sqlite.count)
            let cases: [(String, [UInt8])] = [
                ("empty", []), ("random", random), ("randomPages", randomPages), ("sqlite", sqlite),
                ("short", Array("T-DB".utf8)),
                ("unaligned", [UInt8](repeating: 0, count: 16) + Array("T-DB".utf8) + [24, 24, 0, 0, 0]),
            ]
            for (name, bytes) in cases {
                let url = directory.appendingPathComponent(name)
                try Data(bytes).write(to: url)
                #expect(throws: RealmFileError.self, "\(name)") { try readEverything(url) }
            }
            #expect(throws: RealmFileError.notARealmFile) {
                try RealmFile(url: directory.appendingPathComponent("sqlite"))
            }
            #expect(throws: RealmFileError.notARealmFile) {
                try RealmFile(url: directory.appendingPathComponent("empty"))
            }
            #expect(throws: RealmFileError.self) {
                try RealmFile(url: directory.appendingPathComponent("does-not-exist"))
            }
            #expect(throws: RealmFileError.self) {
                try RealmFile(url: directory)
            }
            // A header with top ref 0 is a valid, empty Realm (as a new file is before its first commit).
            let empty = directory.appendingPathComponent("new.realm")
            try Data([UInt8](repeating: 0, count: 16) + Array("T-DB".utf8) + [24, 24, 0, 0]).write(to: empty)
            let file = try RealmFile(url: empty)
            #expect(file.classes.isEmpty && file.fileFormatVersion == 24 && file.schemaVersion == nil)
        }
    }

    @Test func unsupportedFormatIsNamed() throws {
        try withTemporaryDirectory { directory in
            var bytes = [UInt8](try Data(contentsOf: Fixtures.url("alltypes.realm")))
            bytes[20] = 11
            bytes[21] = 11
            let url = directory.appendingPathComponent("format11.realm")
            try Data(bytes).write(to: url)
            #expect(throws: RealmFileError.unsupportedFileFormat(11)) { try RealmFile(url: url) }
            #expect(RealmFileError.unsupportedFileFormat(11).description.contains("RealmSwift"))
        }
    }

    // MARK: Truncation

    @Test(arguments: ["blog-compact.realm", "alltypes.realm"])
    func truncationAtEveryPageBoundary(name: String) throws {
        let bytes = try Data(contentsOf: Fixtures.url(name))
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent(name)
            var length = 0
            while length < bytes.count {
                try bytes.prefix(length).write(to: url)
                #expect(throws: RealmFileError.self, "\(name) cut at \(length)") { try readEverything(url) }
                length += 4096
            }
        }
    }

    @Test func truncatedEncryptedFile() throws {
        let bytes = try Data(contentsOf: Fixtures.url("blog-encrypted.realm"))
        let key = try Fixtures.blogKey()
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("cut.realm")
            func dataPages(_ length: Int) -> Int {
                let pages = length / 4096
                return pages - (pages + 64) / 65
            }
            for length in stride(from: 0, to: bytes.count, by: 4096 * 13) {
                try bytes.prefix(length).write(to: url)
                if dataPages(length) < dataPages(bytes.count) {
                    #expect(throws: RealmFileError.self, "cut at \(length)") { try readEverything(url, key: key) }
                } else {
                    // Only an IV-table page without data pages was cut off: nothing is lost.
                    #expect(try readEverything(url, key: key) == 7348)
                }
            }
        }
    }

    // MARK: Damage

    @Test func flippedBytesInAPlainFile() throws {
        let original = [UInt8](try Data(contentsOf: Fixtures.url("alltypes.realm")))
        var generator = SplitMix64(seed: 2024)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("flipped.realm")
            for _ in 0..<200 {
                var bytes = original
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                try Data(bytes).write(to: url)
                do {
                    try readEverything(url)
                } catch is RealmFileError {
                    // A detected inconsistency: fine.
                } catch {
                    Issue.record("byte \(position): unexpected error \(error)")
                }
            }
        }
    }

    @Test func flippedBytesInAnEncryptedFile() throws {
        let original = [UInt8](try Data(contentsOf: Fixtures.url("blog-encrypted.realm")))
        let key = try Fixtures.blogKey()
        var generator = SplitMix64(seed: 4711)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("flipped.realm")
            for _ in 0..<200 {
                var bytes = original
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                try Data(bytes).write(to: url)
                let mustFail = EncryptedRealmLayout.isInWrittenDataPage(position, of: original)
                do {
                    try readEverything(url, key: key)
                    try RealmFile(url: url, encryptionKey: key).verifyEncryptedPages()
                    #expect(!mustFail, "byte \(position) of a written page was flipped without an error")
                } catch is RealmFileError {
                    // Detected: by the HMAC, or by a check of the decrypted structure.
                } catch {
                    Issue.record("byte \(position): unexpected error \(error)")
                }
            }
        }
    }

    /// Damage shaped like the format's own fields rather than single bits: a whole
    /// aligned 8-byte word replaced by a random value or by a small integer (a ref
    /// or a size that points somewhere plausible), or an array header's flag and
    /// size bytes replaced; one to four such changes a copy.
    @Test(arguments: ["alltypes.realm", "blog.realm", "blog-compact.realm"])
    func damagedWordsAndHeaders(name: String) throws {
        let original = [UInt8](try Data(contentsOf: Fixtures.url(name)))
        var generator = SplitMix64(seed: UInt64(original.count))
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("damaged.realm")
            for iteration in 0..<150 {
                var bytes = original
                var positions: [Int] = []
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    let word = Int(generator.next() % UInt64(bytes.count / 8)) * 8
                    positions.append(word)
                    let random = generator.next()
                    for index in 0..<8 {
                        switch iteration % 3 {
                        case 0: bytes[word + index] = UInt8(truncatingIfNeeded: random >> (8 * UInt64(index)))
                        case 1: bytes[word + index] = index == 0 ? UInt8(random % 64) : 0
                        default: if index >= 4 { bytes[word + index] = UInt8(truncatingIfNeeded: random >> (8 * UInt64(index))) }
                        }
                    }
                }
                try Data(bytes).write(to: url)
                do {
                    _ = try readEverything(url)
                } catch is RealmFileError {
                    // A detected inconsistency: fine.
                } catch {
                    Issue.record("words at \(positions): unexpected error \(error)")
                }
            }
        }
    }
}
