import CSodium
import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

// Known-answer tests: VaultCore's key hierarchy, unit sealer, key files and
// whole-file layout against vectors computed outside VaultKit by
// scripts/generate-known-answer-vectors.py (PyNaCl / its bundled libsodium),
// from SECURITY.md. See Fixtures/known-answer/README.md. Every expected byte
// comes from those files; nothing expected is computed by VaultCore.
//
// Where VaultCore draws a random nonce itself (UnitSealer.seal, KeyHierarchy.wrap,
// VaultFileHeader.installKey), the "produce" direction is checked by sealing
// again with libsodium directly, under the vector's key and the vector's
// associated data, with the nonce VaultCore chose: the output must be identical.

// MARK: - Key hierarchy

@Suite("Known answers: key hierarchy")
struct KnownAnswerKeyHierarchyTests {
    private let file: KnownAnswerKeyHierarchy

    init() throws {
        try Sodium.ensureInitialised()
        file = try loadKnownAnswers("key-hierarchy.json", as: KnownAnswerKeyHierarchy.self)
    }

    @Test("the vector file holds vectors")
    func vectorsPresent() {
        #expect(file.vectors.count >= 5)
        #expect(file.headers.count >= 2)
    }

    @Test("KEK = keyed BLAKE2b-256 of the file salt, with the slot's KEK salt and personalisation")
    func keyEncryptionKey() throws {
        for v in file.vectors {
            let kek = try KeyHierarchy.keyEncryptionKey(
                master: knownAnswerMasterKey(v.masterKey),
                fileSalt: knownAnswerBytes(v.fileSalt), kekSalt: knownAnswerBytes(v.kekSalt))
            #expect(knownAnswerContents(kek) == knownAnswerBytes(v.kek), "\(v.name): KEK")
        }
    }

    @Test("page key = crypto_kdf_derive_from_key(data key, 1, \"VKpages1\")")
    func pageKey() throws {
        for v in file.vectors {
            let pageKey = try KeyHierarchy.pageKey(dataKey: knownAnswerSecret(knownAnswerBytes(v.dataKey)))
            #expect(knownAnswerContents(pageKey) == knownAnswerBytes(v.pageKey), "\(v.name): page key")
        }
        for h in file.headers {
            let pageKey = try KeyHierarchy.pageKey(dataKey: knownAnswerSecret(knownAnswerBytes(h.dataKey)))
            #expect(knownAnswerContents(pageKey) == knownAnswerBytes(h.pageKey), "header \(h.name): page key")
        }
    }

    @Test("the static header (bytes 100..<152) is the documented layout")
    func staticHeader() {
        for v in file.vectors {
            let header = VaultFileHeader(suite: .xchacha20Poly1305, fileSalt: knownAnswerBytes(v.fileSalt), slots: [nil, nil])
            #expect(Array(header.serialized()[100..<152]) == knownAnswerBytes(v.staticHeader), "\(v.name): static header")
            #expect(knownAnswerBytes(v.wrapAssociatedData).starts(with: knownAnswerBytes(v.staticHeader)), "\(v.name): vector file self-consistency")
        }
    }

    @Test("a wrapped data key from the vectors unwraps to the data key, and only with its KEK and associated data")
    func unwrap() throws {
        for v in file.vectors {
            let wrapped = knownAnswerBytes(v.wrappedKey)
            let kek = try knownAnswerSecret(knownAnswerBytes(v.kek))
            let associatedData = knownAnswerBytes(v.wrapAssociatedData)
            let dataKey = try knownAnswerUnwrap(wrapped, kek: kek, associatedData: associatedData)
            #expect(dataKey == knownAnswerBytes(v.dataKey), "\(v.name): unwrap")

            // Any flipped bit of nonce, ciphertext or tag.
            for position in [0, 23, 24, 55, 56, 71] {
                var tampered = wrapped
                tampered[position] ^= 0x01
                #expect(try knownAnswerUnwrap(tampered, kek: kek, associatedData: associatedData) == nil, "\(v.name): flip at \(position)")
            }
            // Associated data of another vault (magic, salt), another slot, another generation.
            for position in [0, 20, 51, 52, 53, 60] {
                var otherData = associatedData
                otherData[position] ^= 0x01
                #expect(try knownAnswerUnwrap(wrapped, kek: kek, associatedData: otherData) == nil, "\(v.name): associated data byte \(position)")
            }
            var otherKEK = knownAnswerBytes(v.kek)
            otherKEK[31] ^= 0x80
            #expect(try knownAnswerUnwrap(wrapped, kek: knownAnswerSecret(otherKEK), associatedData: associatedData) == nil, "\(v.name): other KEK")
        }
    }

    @Test("wrap seals the data key exactly as libsodium does under the vector's KEK and associated data")
    func wrap() throws {
        for v in file.vectors {
            let dataKey = knownAnswerBytes(v.dataKey)
            let kek = knownAnswerBytes(v.kek)
            let associatedData = knownAnswerBytes(v.wrapAssociatedData)
            let wrapped = KeyHierarchy.wrap(dataKey: try knownAnswerSecret(dataKey), kek: try knownAnswerSecret(kek), associatedData: associatedData)
            #expect(wrapped.count == 72, "\(v.name): nonce 24 ‖ ciphertext 32 ‖ tag 16")
            guard wrapped.count == 72 else { continue }
            let nonce = Array(wrapped[0..<24])
            #expect(wrapped == referenceWrap(dataKey, associatedData: associatedData, nonce: nonce, kek: kek), "\(v.name): wrap")
        }
    }

    @Test("installKey wraps under the KEK of a fresh KEK salt with the documented associated data")
    func installKey() throws {
        for v in file.vectors {
            let master = try knownAnswerMasterKey(v.masterKey)
            let fileSalt = knownAnswerBytes(v.fileSalt)
            let dataKey = knownAnswerBytes(v.dataKey)
            let generation = try #require(UInt64(v.generation))
            var header = VaultFileHeader(suite: .xchacha20Poly1305, fileSalt: fileSalt, slots: [nil, nil])
            try header.installKey(dataKey: knownAnswerSecret(dataKey), masterKey: master, slotIndex: v.slotIndex, generation: generation)
            let slot = try #require(header.slots[v.slotIndex], "\(v.name): slot installed")
            #expect(slot.generation == generation)
            #expect(slot.kekSalt.count == 16 && slot.wrappedKey.count == 72)
            // The KEK of this salt (keyEncryptionKey is checked against the vectors above).
            let kek = knownAnswerContents(try KeyHierarchy.keyEncryptionKey(master: master, fileSalt: fileSalt, kekSalt: slot.kekSalt))
            let nonce = Array(slot.wrappedKey[0..<24])
            #expect(slot.wrappedKey == referenceWrap(dataKey, associatedData: knownAnswerBytes(v.wrapAssociatedData), nonce: nonce, kek: kek),
                    "\(v.name): installKey's wrap associated data is not header bytes 100..<152 ‖ slot index ‖ generation (LE)")
        }
    }

    @Test("whole header blocks parse, re-serialise to the same bytes, and open only with their key")
    func headerBlocks() throws {
        let vectorsByName = Dictionary(uniqueKeysWithValues: file.vectors.map { ($0.name, $0) })
        for h in file.headers {
            let block = knownAnswerBytes(h.block)
            #expect(block.count == 4096)
            let header = try VaultFileHeader.parse(block, path: "kat")
            #expect(header.suite == .xchacha20Poly1305, "\(h.name)")
            #expect(header.fileSalt == knownAnswerBytes(h.fileSalt), "\(h.name): file salt")
            #expect(header.activeSlot?.index == h.activeSlot, "\(h.name): active slot")
            #expect(header.activeSlot?.slot.generation == UInt64(h.activeGeneration), "\(h.name): active generation")

            var expectedStates: [VaultMaintenance.VaultInfo.SlotState] = []
            for (index, name) in h.slots.enumerated() {
                guard let name else {
                    #expect(header.slots[index] == nil, "\(h.name): slot \(index) is empty")
                    expectedStates.append(.empty)
                    continue
                }
                let v = try #require(vectorsByName[name])
                let generation = try #require(UInt64(v.generation))
                let expected = VaultFileHeader.KeySlot(generation: generation, kekSalt: knownAnswerBytes(v.kekSalt), wrappedKey: knownAnswerBytes(v.wrappedKey))
                #expect(header.slots[index] == expected, "\(h.name): slot \(index)")
                #expect(Array(block[VaultFileHeader.slotOffsets[index]..<(VaultFileHeader.slotOffsets[index] + 128)]) == knownAnswerBytes(v.slotBytes), "\(h.name): vector file self-consistency")
                expectedStates.append(.valid(generation: generation))
            }
            #expect(VaultFileHeader.slotStates(block) == expectedStates, "\(h.name): slot checksums (BLAKE2b-128, personal \"VaultKit-slot-v1\")")

            let serialized = header.serialized()
            #expect(serialized.count == 4096)
            #expect(Array(serialized[100...]) == Array(block[100...]), "\(h.name): header bytes 100..<4096 must re-serialise exactly")
            #expect(Array(serialized[..<100]) == Array(block[..<100]), "\(h.name): the decoy SQLite header differs")

            for key in h.opensWith {
                let dataKey = try header.unlock(masterKey: knownAnswerMasterKey(key), path: "kat")
                #expect(knownAnswerContents(dataKey) == knownAnswerBytes(h.dataKey), "\(h.name): data key")
                #expect(knownAnswerContents(try KeyHierarchy.pageKey(dataKey: dataKey)) == knownAnswerBytes(h.pageKey), "\(h.name): page key")
            }
            for key in h.rejects {
                #expect(throws: VaultError.wrongKey(path: "kat"), "\(h.name): must refuse this key") {
                    _ = try header.unlock(masterKey: knownAnswerMasterKey(key), path: "kat")
                }
            }
        }
    }
}

// MARK: - Unit sealer

@Suite("Known answers: unit sealer")
struct KnownAnswerUnitSealerTests {
    private let file: KnownAnswerUnits

    init() throws {
        try Sodium.ensureInitialised()
        file = try loadKnownAnswers("unit-sealer.json", as: KnownAnswerUnits.self)
    }

    private struct Unit {
        var name: String
        var key: [UInt8]
        var fileSalt: [UInt8]
        var kind: UnitKind
        var index: UInt64
        var associatedData: [UInt8]
        var plaintext: [UInt8]
        var sealed: [UInt8]
    }

    private func units() throws -> [Unit] {
        try file.vectors.map { (v: KnownAnswerUnits.Vector) throws -> Unit in
            let kind = try #require(UnitKind(rawValue: v.kindByte), "\(v.name): kind \(v.kindByte)")
            #expect(String(describing: kind) == v.kind, "\(v.name): SECURITY.md numbers kind \(v.kindByte) as \(v.kind)")
            #expect(v.suite == CipherSuite.xchacha20Poly1305.rawValue)
            let unit = Unit(
                name: v.name, key: knownAnswerBytes(v.key), fileSalt: knownAnswerBytes(v.fileSalt), kind: kind,
                index: try #require(UInt64(v.index)), associatedData: knownAnswerBytes(v.associatedData),
                plaintext: knownAnswerBytes(v.plaintext), sealed: knownAnswerBytes(v.sealed))
            // The vector file itself: sealed = ciphertext ‖ nonce ‖ tag.
            #expect(Array(unit.sealed[unit.plaintext.count..<(unit.plaintext.count + 24)]) == knownAnswerBytes(v.nonce), "\(v.name): vector file self-consistency")
            #expect(Array(unit.sealed.suffix(16)) == knownAnswerBytes(v.tag), "\(v.name): vector file self-consistency")
            return unit
        }
    }

    private func makeSealer(_ unit: Unit, key: [UInt8]? = nil, fileSalt: [UInt8]? = nil) throws -> UnitSealer {
        UnitSealer(key: try knownAnswerSecret(key ?? unit.key, protection: .readOnly), fileSalt: fileSalt ?? unit.fileSalt)
    }

    @Test("the vector file covers every unit kind")
    func everyKind() throws {
        let kinds = Set(try units().map(\.kind.rawValue))
        #expect(kinds == Set(1...6))
        #expect(UnitSealer.associatedDataByteCount == 42 && UnitSealer.overhead == 40)
    }

    @Test("units sealed outside VaultKit open to their exact plaintext")
    func opensPythonSealedUnits() throws {
        for unit in try units() {
            let result = knownAnswerOpen(try makeSealer(unit), unit.sealed, count: unit.plaintext.count, kind: unit.kind, index: unit.index)
            #expect(result.opened, "\(unit.name): did not authenticate")
            #expect(result.output == unit.plaintext, "\(unit.name): plaintext")
        }
    }

    @Test("one flipped bit anywhere in a unit fails authentication, and the output is wiped")
    func rejectsFlippedBits() throws {
        for unit in try units() {
            let n = unit.plaintext.count
            let sealer = try makeSealer(unit)
            for position in [0, n / 2, n - 1, n, n + 23, n + 24, n + 39] {
                for bit in [0, 7] {
                    var tampered = unit.sealed
                    tampered[position] ^= UInt8(1 << bit)
                    let result = knownAnswerOpen(sealer, tampered, count: n, kind: unit.kind, index: unit.index)
                    #expect(!result.opened, "\(unit.name): flip of bit \(bit) at \(position) was accepted")
                    #expect(result.output.allSatisfy { $0 == 0 }, "\(unit.name): output not zeroed after a failed open")
                }
            }
        }
    }

    @Test("a unit opens only at its own index, as its own kind, in its own vault, under its own key")
    func rejectsOtherPositions() throws {
        for unit in try units() {
            let n = unit.plaintext.count
            let sealer = try makeSealer(unit)
            var otherIndices: Set<UInt64> = [unit.index &+ 1, unit.index &- 1, unit.index ^ (1 << 32), unit.index.byteSwapped]
            otherIndices.remove(unit.index)
            for index in otherIndices {
                #expect(!knownAnswerOpen(sealer, unit.sealed, count: n, kind: unit.kind, index: index).opened, "\(unit.name): opened at index \(index)")
            }
            for raw in UInt8(1)...6 where raw != unit.kind.rawValue {
                let kind = try #require(UnitKind(rawValue: raw))
                #expect(!knownAnswerOpen(sealer, unit.sealed, count: n, kind: kind, index: unit.index).opened, "\(unit.name): opened as \(kind)")
            }
            var otherSalt = unit.fileSalt
            otherSalt[31] ^= 0x01
            #expect(!knownAnswerOpen(try makeSealer(unit, fileSalt: otherSalt), unit.sealed, count: n, kind: unit.kind, index: unit.index).opened,
                    "\(unit.name): opened in another vault (file salt)")
            var otherKey = unit.key
            otherKey[0] ^= 0x01
            #expect(!knownAnswerOpen(try makeSealer(unit, key: otherKey), unit.sealed, count: n, kind: unit.kind, index: unit.index).opened,
                    "\(unit.name): opened under another key")
        }
    }

    @Test("VaultCore seals exactly as libsodium does under the vector's key and associated data, with prefix ‖ counter nonces")
    func sealsLikeTheReference() throws {
        for unit in try units() {
            let n = unit.plaintext.count
            let sealer = try makeSealer(unit)
            let first = knownAnswerSeal(sealer, unit.plaintext, kind: unit.kind, index: unit.index)
            let second = knownAnswerSeal(sealer, unit.plaintext, kind: unit.kind, index: unit.index)
            let firstNonce = Array(first[n..<(n + 24)])
            let secondNonce = Array(second[n..<(n + 24)])
            #expect(first == referenceSealUnit(unit.plaintext, associatedData: unit.associatedData, nonce: firstNonce, key: unit.key),
                    "\(unit.name): VaultCore's seal differs from XChaCha20-Poly1305 over the documented associated data")
            #expect(second == referenceSealUnit(unit.plaintext, associatedData: unit.associatedData, nonce: secondNonce, key: unit.key),
                    "\(unit.name): second seal")
            // SECURITY.md, "Nonces": a random 16-byte prefix per handle, then a 64-bit little-endian counter.
            #expect(firstNonce[0..<16] == secondNonce[0..<16], "\(unit.name): one prefix per sealer")
            #expect(Array(firstNonce[16...]) == [1, 0, 0, 0, 0, 0, 0, 0], "\(unit.name): first counter")
            #expect(Array(secondNonce[16...]) == [2, 0, 0, 0, 0, 0, 0, 0], "\(unit.name): second counter")
            // And what VaultCore seals opens back (through a fresh sealer: another handle).
            let reopened = knownAnswerOpen(try makeSealer(unit), first, count: n, kind: unit.kind, index: unit.index)
            #expect(reopened.opened && reopened.output == unit.plaintext, "\(unit.name): round trip")
        }
    }
}

// MARK: - Key files

@Suite("Known answers: key files")
struct KnownAnswerKeyFileTests {
    private let file: KnownAnswerKeyFiles

    init() throws {
        try Sodium.ensureInitialised()
        file = try loadKnownAnswers("key-file.json", as: KnownAnswerKeyFiles.self)
    }

    @Test("key files made outside VaultKit load to their key, identifier and creation time")
    func decodes() throws {
        #expect(file.vectors.count >= 3)
        for v in file.vectors {
            let passphrase = try v.passphrase.map { try Passphrase($0) }
            let decoded = try KeyFile.decode(knownAnswerBytes(v.file), path: "kat", passphrase: passphrase)
            #expect(decoded.identifier == v.identifier, "\(v.name): identifier")
            #expect(decoded.created == Date(timeIntervalSince1970: TimeInterval(v.created)), "\(v.name): creation time")
            #expect(decoded.key.withUnsafeBytes { Array($0) } == knownAnswerBytes(v.key), "\(v.name): key")
        }
    }

    @Test("a sealed key file refuses a wrong or missing passphrase and a changed byte")
    func refuses() throws {
        for v in file.vectors {
            let bytes = knownAnswerBytes(v.file)
            var flipped = bytes
            flipped[bytes.count - 40] ^= 0x01   // in the key (plain) or the tag (sealed); the checksum no longer matches
            let passphrase = try v.passphrase.map { try Passphrase($0) }
            do {
                _ = try KeyFile.decode(flipped, path: "kat", passphrase: passphrase)
                Issue.record("\(v.name): a changed byte was accepted")
            } catch {
                // KeyFile.decode throws only KeyStoreError.
                guard case .corrupt = error else { Issue.record("\(v.name): a changed byte gave \(error)"); continue }
            }
            guard let wrong = v.wrongPassphrase else { continue }
            #expect(throws: KeyStoreError.wrongPassphrase(path: "kat"), "\(v.name)") {
                _ = try KeyFile.decode(bytes, path: "kat", passphrase: try Passphrase(wrong))
            }
            #expect(throws: KeyStoreError.passphraseRequired(path: "kat"), "\(v.name)") {
                _ = try KeyFile.decode(bytes, path: "kat", passphrase: nil)
            }
        }
    }

    @Test("a plain key file is encoded byte for byte as the vector")
    func encodesPlain() throws {
        for v in file.vectors where v.passphrase == nil {
            let keyFile = KeyFile(identifier: v.identifier, created: Date(timeIntervalSince1970: TimeInterval(v.created)), key: try knownAnswerMasterKey(v.key))
            #expect(try keyFile.encoded(passphrase: nil, cost: .interactive) == knownAnswerBytes(v.file), "\(v.name)")
        }
    }
}

// MARK: - A whole vault sealed outside VaultKit

@Suite("Known answers: a vault file sealed outside VaultKit")
struct KnownAnswerVaultFileTests {
    private let manifest: KnownAnswerVaultFile
    private let database: Data
    private let wal: Data

    init() throws {
        manifest = try loadKnownAnswers("vault-file.json", as: KnownAnswerVaultFile.self)
        database = try Data(contentsOf: knownAnswerDirectory.appendingPathComponent(manifest.databaseFile))
        wal = try Data(contentsOf: knownAnswerDirectory.appendingPathComponent(manifest.walFile))
    }

    /// Copies the files to a fresh directory, opens them, reads table `t`, verifies.
    private func open(database: Data, wal: Data?, key: MasterKey) throws -> [(Int64, String)] {
        let directory = try TemporaryDirectory("known-answer")
        let url = directory.file("kat.vault")
        try database.write(to: url)
        if let wal { try wal.write(to: URL(fileURLWithPath: url.path + "-wal")) }
        let vault = try openVault(url, key: key)
        defer { vault.close() }
        let rows = try readRows(vault)
        try vault.verify()
        return rows
    }

    private func expectRows(_ rows: [(Int64, String)], _ expected: [KnownAnswerVaultFile.Row], _ comment: Comment) {
        #expect(rows.count == expected.count, comment)
        #expect(rows.map(\.0) == expected.map(\.id), comment)
        #expect(rows.map(\.1) == expected.map(\.body), comment)
    }

    /// The integrity failure that opening these files reports, if any.
    private func integrityFailure(database: Data, wal: Data?) throws -> IntegrityFailure? {
        do {
            _ = try open(database: database, wal: wal, key: knownAnswerMasterKey(manifest.masterKey))
            return nil
        } catch let error as VaultError {
            guard case .integrity(let failure) = error else {
                Issue.record("expected an integrity failure, got \(error)")
                return nil
            }
            return failure
        }
    }

    @Test("the files have the documented sizes, and the WAL frames sit at the documented offsets")
    func layout() {
        #expect(database.count == 4096 + manifest.pageCount * 4096)
        #expect(SealedFileLayout.database.logicalSize(physicalSize: Int64(database.count)) == Int64(manifest.pageCount * 4096))
        #expect(SealedFileLayout.wal.logicalSize(physicalSize: Int64(wal.count)) == 32 + Int64(manifest.walFrameCount) * 4120)
        #expect(manifest.walFrameCount > 63, "the WAL must reach the second frame group")
        for f in manifest.walFramesChecked {
            let logical = 32 + Int64(f.frame - 1) * 4120   // SECURITY.md: logical 32 + (i−1)·4120, +24 for the page
            let header = SealedFileLayout.wal.unit(at: logical)
            let page = SealedFileLayout.wal.unit(at: logical + 24)
            #expect(header.kind == .walFrameHeader && header.index == f.frame && header.physicalStart == f.headerOffset, "frame \(f.frame) header")
            #expect(page.kind == .walPage && page.index == f.frame && page.physicalStart == f.pageOffset, "frame \(f.frame) page")
        }
    }

    @Test("VaultKit opens the vault and its WAL and reads back every row")
    func opensWithWAL() throws {
        let rows = try open(database: database, wal: wal, key: knownAnswerMasterKey(manifest.masterKey))
        expectRows(rows, manifest.rowsWithWal, "with the WAL")
    }

    @Test("without its WAL the vault reads back the checkpointed rows")
    func opensWithoutWAL() throws {
        let rows = try open(database: database, wal: nil, key: knownAnswerMasterKey(manifest.masterKey))
        expectRows(rows, manifest.rowsWithoutWal, "without the WAL")
    }

    @Test("another master key is refused")
    func wrongKey() throws {
        var other = knownAnswerBytes(manifest.masterKey)
        other[0] ^= 0x01
        do {
            _ = try open(database: database, wal: wal, key: try MasterKey(bytes: Data(other)))
            Issue.record("another master key opened the vault")
        } catch let error as VaultError {
            guard case .wrongKey = error else { Issue.record("expected wrongKey, got \(error)"); return }
        }
    }

    @Test("a flipped bit in a WAL frame or a page is an integrity failure naming that frame or page; in the last transaction's frame, a torn tail")
    func tampering() throws {
        for f in manifest.walFramesChecked {
            for (what, position) in [("header", f.headerOffset + 5), ("page", f.pageOffset + 100), ("tag", f.pageOffset + 4095)] {
                var bytes = wal
                bytes[Int(position)] ^= 0x01
                let failure = try integrityFailure(database: database, wal: bytes)
                if f.frame == UInt64(manifest.walFrameCount) {
                    // Every frame here is a one-frame transaction: the last one, damaged, is dropped (see WALTail).
                    #expect(failure == nil, "flip in the last frame \(what): a torn tail, not a failure")
                } else {
                    #expect(failure?.location == .walFrame(f.frame), "flip in frame \(f.frame) \(what)")
                }
            }
        }
        for page in 1...manifest.pageCount {
            var bytes = database
            bytes[4096 * page + 17] ^= 0x01
            let failure = try integrityFailure(database: bytes, wal: nil)
            #expect(failure?.location == .databasePage(UInt64(page)), "flip in page \(page)")
        }
    }
}
