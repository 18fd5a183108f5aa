import ArgumentParser
import Foundation
import VaultCore

/// `vault info`: what the header says, without a key.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a vault's format, cipher suite, page size, page count and key slots (no key needed)."
    )

    @Argument(help: "The vault file.")
    var vault: String

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() throws {
        let info: VaultMaintenance.VaultInfo
        do {
            info = try VaultMaintenance.inspect(vaultAt: URL(fileURLWithPath: vault))
        } catch {
            throw fail(error)
        }
        func slotText(_ slot: VaultMaintenance.VaultInfo.SlotState) -> String {
            switch slot {
            case .empty: "empty"
            case .damaged: "damaged"
            case .valid(let generation): "generation \(generation)"
            }
        }
        if json {
            printJSON([
                "path": info.path, "formatVersion": info.formatVersion, "cipherSuite": info.cipherSuite,
                "pageSize": info.pageSize, "reservedBytesPerPage": info.reservedBytesPerPage,
                "fileSize": info.fileSize, "pageCount": info.pageCount, "walSize": info.walSize, "walFrames": info.walFrameCount,
                "keySlots": info.slots.map { slot -> [String: Any] in
                    switch slot {
                    case .empty: ["state": "empty"]
                    case .damaged: ["state": "damaged"]
                    case .valid(let generation): ["state": "valid", "generation": generation]
                    }
                },
            ])
            return
        }
        print("""
        vault:          \(info.path)
        format:         VaultKit v\(info.formatVersion)
        cipher suite:   \(info.cipherSuite)
        page size:      \(info.pageSize) bytes (\(info.reservedBytesPerPage) reserved for nonce and tag)
        pages:          \(info.pageCount) (\(info.fileSize) bytes)
        WAL frames:     \(info.walFrameCount) (\(info.walSize) bytes)
        key slot A:     \(info.slots.first.map(slotText) ?? "?")
        key slot B:     \(info.slots.dropFirst().first.map(slotText) ?? "?")
        """)
    }
}
