import Foundation
import VaultCore
@_spi(Interchange) import VaultKit

// MARK: - The canonical JSON encoding
//
// One encoding of a vault's contents, shared by `vault export --format json`,
// the Realm importer's tests and `vault import`: the one Realm Core's own
// reading of a file produces in shared/fixtures/realm/README.md, so that a
// Realm file imported into a vault exports to exactly its JSON.
//
//   { "schemaVersion": N,
//     "classes": { "<Class>": { "embedded": bool, "primaryKey": "<property>" | null,
//                               "properties": [ { "name", "column", "type", "optional", "collection",
//                                                 "objectType"?, "originProperty"?, "primaryKey"?, "indexed"? } ],
//                               "objects": [ { "<property>": value, … } ] } } }
//
// Classes in alphabetical order; properties in schema order and under their
// persisted names (the file's names, not Swift's); objects sorted by primary
// key (classes without one: in insertion order); embedded classes list no
// objects (their objects are inline in their owners); linking-objects
// properties are listed with type "linkingObjects" and have no value.
//
// Values: int → integer; bool; float and double → number (%.17g) or "NaN",
// "Infinity", "-Infinity"; string; data → base64; date → {"seconds",
// "nanoseconds"} since 1970 (exact: see VaultKit's ExactTimestamp); decimal →
// its text; objectId → 24 lower-case hex digits; uuid → lower-case 8-4-4-4-12;
// null. A link → the target's primary key, or {"class", "index"} for a class
// without one (its position among that class's objects), or the embedded
// object inline. Mixed → {"type", "value"} (a link: {"type": "object",
// "class", "value"}; nested collections: "list" / "dictionary"). Lists in
// order, sets in stored order, dictionaries by key.
//
// The output is deterministic — the same vault always gives the same bytes —
// and written as it is read: one object at a time, whatever the vault's size.

/// Writes a vault's classes and objects in the canonical JSON encoding.
///
/// ```swift
/// let vault = try Vault(configuration: configuration)
/// try CanonicalJSONExport.write(vault, to: FileHandle.standardOutput)
/// ```
public enum CanonicalJSONExport {
    /// Writes every class and object of `vault`, as of its current version, to `handle`.
    /// - Parameters:
    ///   - vault: The vault to export.
    ///   - handle: Where the document goes.
    ///   - progress: Called with (objects written, objects in the vault) every 1,000 objects and at the end.
    /// - Throws: `VaultError` from reading; errors writing to the handle.
    public static func write(_ vault: Vault, to handle: FileHandle, progress: ((Int, Int) -> Void)? = nil) throws {
        let output = BufferedOutput(handle: handle)
        try vault.readInterchange { reader in
            var encoder = Encoder(reader: reader, output: output)
            if let progress {
                let total = try reader.schemas.filter { !$0.isEmbedded }.reduce(0) { $0 + (try reader.count(of: $1.className)) }
                var done = 0
                encoder.objectWritten = {
                    done += 1
                    if done % 1_000 == 0 || done == total { progress(done, total) }
                }
            }
            try encoder.document()
        }
        try output.flush()
    }

    /// The whole document as a string (for small vaults and tests).
    public static func string(of vault: Vault) throws -> String {
        let output = BufferedOutput(handle: nil)
        try vault.readInterchange { reader in try Encoder(reader: reader, output: output).document() }
        return output.collected
    }
}

/// Appends text and writes it to a file handle in 64 KiB chunks (or keeps it, without a handle).
final class BufferedOutput {
    private let handle: FileHandle?
    private var buffer: [UInt8] = []
    private(set) var collectedBytes: [UInt8] = []

    init(handle: FileHandle?) {
        self.handle = handle
        buffer.reserveCapacity(1 << 16)
    }

    var collected: String { String(decoding: collectedBytes + buffer, as: UTF8.self) }

    func append(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        if let handle {
            try handle.write(contentsOf: buffer)
        } else {
            collectedBytes += buffer
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
