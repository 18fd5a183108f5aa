import Foundation
import VaultCore
import VaultKit
import VaultSync
import VaultTestSupport

/// `sync-apply <vault> <change sets file>`: applies the change sets of the
/// file (each a u32 little-endian length and its bytes) five at a time,
/// printing "applied K" after each transaction, then "done".
/// `sync-write <vault>`: commits local edits one after the other, printing
/// "committed N" after each commit returns, until it is killed.
/// Both open the vault with the sync tests' models; the test kills them at a
/// random moment and checks that nothing was half applied, doubled or lost.
func runSyncDevice(mode: String, configuration: Vault.Configuration, changeSetsFile: String?) {
    do {
        let synced = try SyncedVault(configuration: configuration)
        switch mode {
        case "sync-apply":
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: changeSetsFile ?? "")))
            var changeSets: [ChangeSet] = []
            var offset = 0
            while offset + 4 <= bytes.count {
                let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
                guard offset + 4 + length <= bytes.count else { fail("truncated change sets file") }
                changeSets.append(try ChangeSetCodec.decode(Array(bytes[(offset + 4)..<(offset + 4 + length)])))
                offset += 4 + length
            }
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            var applied = 0
            for start in stride(from: 0, to: changeSets.count, by: 5) {
                applied += try synced.apply(Array(changeSets[start..<min(start + 5, changeSets.count)]))
                FileHandle.standardOutput.write(Data("applied \(applied)\n".utf8))
            }
            FileHandle.standardOutput.write(Data("done\n".utf8))
        default:
            let vault = try Vault(configuration: configuration)
            var next = vault.objects(SyncNote.self).count
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            while true {
                try vault.write {
                    let note = vault.create(SyncNote.self, value: ["id": "w\(next)", "title": "t\(next)", "rank": next])
                    note.tags.append(objectsIn: ["a\(next)", "b\(next)"])
                    if let previous = vault.object(ofType: SyncNote.self, forPrimaryKey: "w\(next - 1)") {
                        previous.title = "edited"
                        previous.tags.insert("c", at: 1)
                    }
                }
                FileHandle.standardOutput.write(Data("committed \(next)\n".utf8))
                next += 1
            }
        }
    } catch {
        fail("\(error)")
    }
}
