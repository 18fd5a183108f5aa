import Foundation
import Testing
import VaultCore
import VaultInterchange
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// Seeded mutants of the fixtures through both importers. Each import either is refused
/// with a typed error, leaving no file behind (and a merge leaves the vault's export as it
/// was), or succeeds with a vault that exports, and whose export imports back to the same
/// bytes — never a vault that fails to export. An unmutated import's export is the anchor.
@Suite("Import fuzzing: refused cleanly, or a vault that exports", .serialized)
struct ImportFuzzTests {
    /// Bytes a JSON mutation inserts or writes over: structure, digits, escapes, extremes.
    static let jsonTokens: [String] = ["{", "}", "[", "]", "\"", ",", ":", "0", "9", "-", "e", ".", "\\", "null", "true",
                                       "1e400", "01", "-0", "9223372036854775808", "\"====\"", "\"NaN \"", "{\"type\":\"list\",\"value\":[]}",
                                       "\"\\ud800\"", "\u{00e9}", " "]

    static func mutate(_ bytes: [UInt8], json: Bool, using random: inout SplitMix64) -> [UInt8] {
        var result = bytes
        let edits = Int.random(in: 1...3, using: &random)
        for _ in 0..<edits where !result.isEmpty {
            let at = Int.random(in: 0..<result.count, using: &random)
            switch Int.random(in: 0..<(json ? 6 : 4), using: &random) {
            case 0: result[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 1: result[at] = UInt8.random(in: 0...255, using: &random)
            case 2: result.remove(at: at)
            case 3:
                let length = min(Int.random(in: 1...64, using: &random), result.count - at)
                result.insert(contentsOf: result[at..<(at + length)], at: at)
            case 4: result.insert(contentsOf: Array(jsonTokens[Int.random(in: 0..<jsonTokens.count, using: &random)].utf8), at: at)
            default: result.removeSubrange(at..<min(result.count, at + Int.random(in: 1...16, using: &random)))
            }
        }
        return result
    }

    private func export(_ url: URL) throws -> String {
        let version = try schemaVersionAtURL(url, encryptionKey: ImportFixtures.vaultKey)
        return try CanonicalJSONExport.string(of: try Vault(configuration: ImportFixtures.configuration(url, schemaVersion: version)))
    }

    /// An imported vault exports, and its export imports back to the same bytes.
    private func checkExports(_ vault: URL, in directory: TemporaryDirectory, label: String) throws {
        let first: String
        do {
            first = try export(vault)
        } catch {
            Issue.record("\(label): imported, but the vault does not export: \(error)")
            return
        }
        let document = directory.file("again.json")
        let again = directory.file("again.vault")
        defer {
            _ = try? VaultMaintenance.deleteFiles(ofVaultAt: again)
            try? FileManager.default.removeItem(at: document)
        }
        try Data(first.utf8).write(to: document)
        do {
            try CanonicalJSONImport.importDocument(at: document, into: ImportFixtures.configuration(again))
            #expect(try export(again) == first, "\(label): the export does not import back to itself")
        } catch {
            Issue.record("\(label): the export of an imported vault is refused on import: \(error)")
        }
    }

    private func leftovers(_ directory: TemporaryDirectory) throws -> [String] {
        try ImportFixtures.files(in: directory.url).filter { $0.contains("vaultkit-new") || $0.hasPrefix("mutant") }
    }

    /// An exported document of every type: alltypes imported, all but 4 of its 100 AllTypes
    /// objects deleted (the 20 Targets they link to kept), exported. Small, so hundreds of
    /// mutants fit in the time.
    private func compactDocument(in directory: TemporaryDirectory) throws -> [UInt8] {
        let full = directory.file("full.vault")
        try CanonicalJSONImport.importDocument(at: ImportFixtures.url("alltypes.json"), into: ImportFixtures.configuration(full))
        func trimmedExport() throws -> String {
            let vault = try Vault(configuration: ImportFixtures.configuration(full, schemaVersion: try schemaVersionAtURL(full, encryptionKey: ImportFixtures.vaultKey)))
            try vault.write {
                let objects = Array(vault.dynamicObjects("AllTypes"))
                for object in objects.dropFirst(4) { vault.delete(object) }
            }
            return try CanonicalJSONExport.string(of: vault)
        }
        return Array(try trimmedExport().utf8)
    }

    /// Imports a pristine copy of the base vault: a merge starts from the anchor every time.
    private func restore(_ base: URL, from pristine: URL) throws {
        _ = try? VaultMaintenance.deleteFiles(ofVaultAt: base)
        try FileManager.default.copyItem(at: pristine, to: base)
    }

    @Test func jsonMutants() async throws {
        let directory = try TemporaryDirectory("fuzz-json")
        let original = try compactDocument(in: directory)
        let source = directory.file("original.json")
        try Data(original).write(to: source)
        let pristine = directory.file("pristine.vault")
        try CanonicalJSONImport.importDocument(at: source, into: ImportFixtures.configuration(pristine))
        let anchor = try export(pristine)
        let base = directory.file("base.vault")
        var random = SplitMix64(seed: 0x63)
        var outcomes = (accepted: 0, refused: 0, merged: 0, mergeRefused: 0)
        var spent: TimeInterval = 0, yielded: TimeInterval = 0
        for index in 0..<100_000 where spent < Self.budget {
            // The pass gives the shared test threads back every half second of its work, so the parallel
            // tests' jobs (and their time limits) are not starved behind it; its budget counts its own work only.
            if spent >= yielded + 0.5 { yielded = spent; await Task.yield() }
            let started = Date()
            defer { spent += Date().timeIntervalSince(started) }
            let label = "mutant \(index)"
            let file = directory.file("doc.json")
            try Data(Self.mutate(original, json: true, using: &random)).write(to: file)
            let destination = directory.file("mutant.vault")
            do {
                try CanonicalJSONImport.importDocument(at: file, into: ImportFixtures.configuration(destination))
                outcomes.accepted += 1
                try checkExports(destination, in: directory, label: label)
                try VaultMaintenance.deleteFiles(ofVaultAt: destination)
            } catch let error as JSONImportError {
                outcomes.refused += 1
                if case .io = error { Issue.record("\(label): refused as an I/O error: \(error)") }
                #expect(try leftovers(directory) == [], "\(label): a refused import left files")
            }
            // Merged into the vault of the unmutated document: refused with the vault unchanged, or it exports.
            try restore(base, from: pristine)
            do {
                let vault = try Vault(configuration: ImportFixtures.configuration(base, schemaVersion: try schemaVersionAtURL(base, encryptionKey: ImportFixtures.vaultKey)))
                try CanonicalJSONImport.importDocument(at: file, into: vault)
                outcomes.merged += 1
                try checkExports(base, in: directory, label: label + " (merged)")
            } catch let error as JSONImportError {
                outcomes.mergeRefused += 1
                if case .io = error { Issue.record("\(label) (merged): refused as an I/O error: \(error)") }
                #expect(try export(base) == anchor, "\(label): a refused merge changed the vault")
            }
        }
        // The mutations reach both outcomes (a pass that only ever refuses tests nothing), and enough of them.
        #expect(outcomes.accepted > 0 && outcomes.refused > 0 && outcomes.merged > 0 && outcomes.mergeRefused > 0, "\(outcomes)")
        #expect(outcomes.accepted + outcomes.refused >= 100, "only \(outcomes) in \(Self.budget) s")
        print("fuzz json: \(outcomes)")
    }

    /// Seconds of work each fuzz test may do, not counting its waits for a test thread
    /// (they stop at the first of this and their count):
    /// 25, or `VAULTKIT_FUZZ_SECONDS` for a longer pass.
    static let budget: TimeInterval = ProcessInfo.processInfo.environment["VAULTKIT_FUZZ_SECONDS"].flatMap(TimeInterval.init) ?? 25

    @Test(arguments: ["alltypes.realm", "blog-encrypted.realm"])
    func realmMutants(name: String) async throws {
        let directory = try TemporaryDirectory("fuzz-realm")
        let original = try [UInt8](Data(contentsOf: ImportFixtures.url(name)))
        let key = name.contains("encrypted") ? try ImportFixtures.blogKey() : nil
        let pristine = directory.file("pristine.vault")
        try Vault.importRealm(at: ImportFixtures.url(name), encryptionKey: key, into: ImportFixtures.configuration(pristine))
        let anchor = try export(pristine)
        var random = SplitMix64(seed: 0x63_1000 &+ UInt64(original.count))
        var outcomes = (same: 0, different: 0, refused: 0)
        var spent: TimeInterval = 0, yielded: TimeInterval = 0
        for index in 0..<100_000 where spent < Self.budget {
            if spent >= yielded + 0.5 { yielded = spent; await Task.yield() }
            let started = Date()
            defer { spent += Date().timeIntervalSince(started) }
            let label = "\(name) mutant \(index)"
            let file = directory.file("mutant-source.realm")
            var mutant = original
            // Byte changes only (a Realm file's offsets make inserts a truncation test): 1–3 of them.
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                mutant[Int.random(in: 0..<mutant.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            try Data(mutant).write(to: file)
            let destination = directory.file("out.vault")
            do {
                try Vault.importRealm(at: file, encryptionKey: key, into: ImportFixtures.configuration(destination))
                // Bytes the file does not use change nothing; a change it does use must still give a vault that exports.
                if (try? export(destination)) == anchor {
                    outcomes.same += 1
                } else {
                    outcomes.different += 1
                    try checkExports(destination, in: directory, label: label)
                }
                try VaultMaintenance.deleteFiles(ofVaultAt: destination)
            } catch let error as RealmImportError {
                outcomes.refused += 1
                if case .destination = error { Issue.record("\(label): refused as a destination error: \(error)") }
                #expect(!FileManager.default.fileExists(atPath: destination.path), "\(label): a refused import left a vault")
                #expect(try ImportFixtures.files(in: directory.url).filter { $0.contains("vaultkit-new") } == [], "\(label): hidden files left")
            }
        }
        print("fuzz \(name): \(outcomes)")
        #expect(outcomes.refused > 0 && outcomes.same + outcomes.different + outcomes.refused >= 30, "\(name): \(outcomes) in \(Self.budget) s")
    }
}
