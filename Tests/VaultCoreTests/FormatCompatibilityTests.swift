import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

/// The repository root, from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite("Format v1 compatibility")
struct FormatCompatibilityTests {
    @Test("the committed format-v1 fixture vault opens and reads back exactly")
    func fixtureOpens() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("format-v1.vault")
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Tests/VaultCoreTests/Fixtures/format-v1.vault"), to: url)
        let keyBytes = try Data(contentsOf: repositoryRoot.appendingPathComponent("KeyFixtures/format-v1.key"))
        let key = try MasterKey(bytes: keyBytes)
        let vault = try openVault(url, key: key) { $0.readOnly = true }
        let rows = try vault.read { db in try db.fetchAll("SELECT id, name, score, data FROM fixture ORDER BY id") }
        #expect(rows.count == 200)
        for row in rows {
            guard let id = row[0].int64.map(Int.init) else { Issue.record("no id"); continue }
            #expect(row[1] == .text("row-\(id)-" + String(repeating: "v", count: id % 50)))
            #expect(row[2] == .real(Double(id) / 4))
            #expect(row[3] == .blob(Data((0..<(id % 40)).map { UInt8(($0 * id) & 0xFF) })))
        }
        try vault.verify()
        #expect(throws: VaultError.self) { _ = try openVault(url, key: try MasterKey.generate()) { $0.readOnly = true } }
    }

    @Test("the fixture's header fields are the documented v1 values")
    func fixtureHeader() throws {
        let bytes = try Array(Data(contentsOf: repositoryRoot.appendingPathComponent("Tests/VaultCoreTests/Fixtures/format-v1.vault")).prefix(4096))
        let header = try VaultFileHeader.parse(bytes, path: "fixture")
        #expect(header.suite == .xchacha20Poly1305)
        #expect(header.activeSlot?.index == 0)
        #expect(header.activeSlot?.slot.generation == 1)
        #expect(header.slots[1] == nil)
    }
}

@Suite("File layout")
struct SealedFileLayoutTests {
    @Test("units tile the logical file and map into disjoint physical ranges", arguments: [SealedFileLayout.database, .wal, .blocks(.journalBlock)])
    func unitsTile(layout: SealedFileLayout) {
        var offset: Int64 = 0
        var ranges: [Range<Int64>] = []
        for _ in 0..<200 {
            let unit = layout.unit(at: offset)
            #expect(unit.logicalStart == offset)
            #expect(layout.unit(at: offset + Int64(unit.logicalLength) - 1).physicalStart == unit.physicalStart)
            #expect(layout.physicalSize(logicalSize: unit.logicalEnd) == unit.physicalEnd)
            if unit.kind != .walFrameHeader {
                // A file that ends with this unit holds everything up to its end.
                #expect(layout.logicalSize(physicalSize: unit.physicalEnd) >= unit.logicalEnd)
            }
            ranges.append(unit.physicalStart..<unit.physicalEnd)
            offset = unit.logicalEnd
        }
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            #expect(a.upperBound <= b.lowerBound, "units \(a) and \(b) overlap")
        }
    }

    @Test("WAL units sit where the essay says, each inside one 4096-byte page")
    func walGeometry() {
        let layout = SealedFileLayout.wal
        #expect(layout.unit(at: 0).physicalLength == 72)
        let frame2Header = layout.unit(at: 32 + 4120)
        #expect(frame2Header.kind == .walFrameHeader && frame2Header.index == 2 && frame2Header.physicalStart == 4096 + 64)
        let frame2Page = layout.unit(at: 32 + 4120 + 24 + 100)
        #expect(frame2Page.kind == .walPage && frame2Page.physicalStart == 4096 + 4096 * 2 && frame2Page.zeroTail == 40)
        let frame64Header = layout.unit(at: 32 + 4120 * 63)
        #expect(frame64Header.index == 64 && frame64Header.physicalStart == 4096 + 64 * 4096, "frame 64 opens the second group")
        #expect(layout.logicalSize(physicalSize: 4096 + 4096 * 4) == 32 + 4120 * 3)
        #expect(layout.logicalSize(physicalSize: 4096 + 4096 * 4 - 1) == 32 + 4120 * 3, "a cut-short page unit still counts, so reading it reports the truncation")
        // Never across a page boundary (SIGKILL can tear a write only there).
        var offset: Int64 = 0
        for _ in 0..<200 {
            let unit = layout.unit(at: offset)
            #expect(unit.physicalStart / 4096 == (unit.physicalEnd - 1) / 4096, "unit at \(unit.physicalStart) crosses a page")
            offset = unit.logicalEnd
        }
        var blockOffset: Int64 = 0
        for _ in 0..<10 {
            let unit = SealedFileLayout.blocks(.journalBlock).unit(at: blockOffset)
            #expect(unit.physicalStart % 4096 == 0 && unit.physicalLength == 4096)
            blockOffset = unit.logicalEnd
        }
    }

    @Test("the database layout keeps the header block")
    func databaseGeometry() {
        let layout = SealedFileLayout.database
        #expect(layout.physicalSize(logicalSize: 0) == 4096)
        #expect(layout.unit(at: 4096 * 7 + 5).index == 8)
        #expect(layout.unit(at: 0).physicalStart == 4096)
        #expect(layout.logicalSize(physicalSize: 4096) == 0)
    }
}

@Suite("Vault header")
struct VaultFileHeaderTests {
    @Test("a header round-trips and unlocks only with its key")
    func roundTrip() throws {
        let key = try MasterKey.generate()
        let (header, dataKey) = try VaultFileHeader.create(masterKey: key)
        let parsed = try VaultFileHeader.parse(header.serialized(), path: "h")
        #expect(parsed.fileSalt == header.fileSalt)
        #expect(try parsed.unlock(masterKey: key, path: "h").constantTimeEquals(dataKey))
        #expect(throws: VaultError.wrongKey(path: "h")) { _ = try parsed.unlock(masterKey: try MasterKey.generate(), path: "h") }
    }

    @Test("the highest valid generation wins, and only it is tried")
    func slotSelection() throws {
        let oldKey = try MasterKey.generate(), newKey = try MasterKey.generate()
        var (header, dataKey) = try VaultFileHeader.create(masterKey: oldKey)
        try header.installKey(dataKey: dataKey, masterKey: newKey, slotIndex: 1, generation: 2)
        let parsed = try VaultFileHeader.parse(header.serialized(), path: "h")
        #expect(parsed.activeSlot?.index == 1)
        #expect(try parsed.unlock(masterKey: newKey, path: "h").constantTimeEquals(dataKey))
        #expect(throws: VaultError.wrongKey(path: "h")) { _ = try parsed.unlock(masterKey: oldKey, path: "h") }
        // A torn newer slot falls back to the older one.
        var bytes = header.serialized()
        bytes[384 + 50] ^= 0xFF
        let torn = try VaultFileHeader.parse(bytes, path: "h")
        #expect(torn.activeSlot?.index == 0)
        #expect(try torn.unlock(masterKey: oldKey, path: "h").constantTimeEquals(dataKey))
    }
}
