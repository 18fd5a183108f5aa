import Foundation
import VaultKit

final class BenchItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var email = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
    @Persisted var created = Date(timeIntervalSinceReferenceDate: 0)
}

/// VaultKit, encrypted (a random 64-byte key). Its default durability is
/// `.full`; `fullSync: false` selects `.normal` (the both-NORMAL commits row).
final class VaultKitContender: Contender {
    static let name = "VaultKit"
    let vault: Vault

    init(directory: URL, fullSync: Bool) throws {
        var configuration = Vault.Configuration(fileURL: directory.appendingPathComponent("bench.vault"),
                                                encryptionKey: benchmarkKey, objectTypes: [BenchItem.self])
        configuration.durability = fullSync ? .full : .normal
        vault = try Vault(configuration: configuration)
    }

    private func object(_ item: Item) -> BenchItem {
        let object = BenchItem()
        object.id = item.id
        object.name = item.name
        object.email = item.email
        object.age = item.age
        object.score = item.score
        object.created = item.created
        return object
    }

    func bulkInsert(_ items: [Item]) throws {
        try vault.write { for item in items { vault.add(object(item)) } }
    }

    func singleCommits(_ items: [Item]) throws {
        for item in items { try vault.write { vault.add(object(item)) } }
    }

    private func read(_ o: BenchItem) -> Int { checksum(o.id, o.name, o.email, o.age, o.score, o.created) }

    func fetch(_ keys: [Int]) throws -> Int {
        var sum = 0
        for key in keys { if let o = vault.object(ofType: BenchItem.self, forPrimaryKey: key) { sum &+= read(o) } }
        return sum
    }

    func fetchFast(_ keys: [Int]) throws -> Int { try fetch(keys) }

    func iterateAll() throws -> Int {
        var sum = 0
        for o in vault.objects(BenchItem.self) { sum &+= read(o) }
        return sum
    }

    func iteratePrefix(_ count: Int) throws -> Int {
        var sum = 0
        for (index, o) in vault.objects(BenchItem.self).enumerated() {
            if index == count { break }
            sum &+= read(o)
        }
        return sum
    }

    func filtered() throws -> Int {
        var sum = 0
        for o in vault.objects(BenchItem.self).filter("age >= 30 AND age < 40") { sum &+= read(o) }
        return sum
    }

    func update(_ keys: [Int]) throws {
        try vault.write {
            for key in keys {
                guard let o = vault.object(ofType: BenchItem.self, forPrimaryKey: key) else { continue }
                o.score += 1
            }
        }
    }
}

/// A random 64-byte key per process (never written anywhere).
let benchmarkKey = Data((0..<64).map { _ in UInt8.random(in: 0...255) })
