import Foundation
import RealmFileReader

/// Where the fixture files are, found relative to this source file (no SwiftPM resources,
/// so that the target builds the same way in any package that includes it).
enum Fixtures {
    /// `Tests/RealmFileReaderTests`, with symlinks resolved.
    static let testRoot: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The small fixtures copied next to the tests.
    static let local = testRoot.appendingPathComponent("Fixtures")

    /// The shared fixture directory of the repository checkout (`../shared/fixtures/realm`
    /// beside the package): holds `bulk.realm` and `older/`, too big or not ours to copy.
    static let shared = testRoot.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/realm")

    static func url(_ name: String) -> URL { local.appendingPathComponent(name) }

    static func sharedURL(_ name: String) -> URL { shared.appendingPathComponent(name) }

    static func sharedExists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: sharedURL(name).path)
    }

    /// The 64-byte key of `blog-encrypted.realm`.
    static func blogKey() throws -> [UInt8] {
        let hex = try String(contentsOf: url("blog-encrypted.key.hex"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { throw FixtureError.badHex }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    static func json(_ url: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: url)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FixtureError.notAnObject
        }
        return object
    }

    enum FixtureError: Error {
        case badHex
        case notAnObject
    }
}

/// A temporary directory, removed when `body` returns.
func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("RealmFileReaderTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// Opens `url` and reads every object of every class; returns the object count.
@discardableResult
func readEverything(_ url: URL, key: [UInt8]? = nil) throws -> Int {
    let file = try RealmFile(url: url, encryptionKey: key)
    var count = 0
    for cls in file.classes {
        try file.forEachObject(ofClass: cls.name) { _ in count += 1 }
        _ = try file.objectCount(ofClass: cls.name)
    }
    return count
}
