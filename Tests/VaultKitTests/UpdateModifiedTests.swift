import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Realm's `.modified` policy updates what an existing object holds where it is
// (realm-swift's ModernObjectCreationTests, "update modified modifies the
// existing embedded objects"): embedded objects keep their rows, so old
// accessors stay valid and read the new values; lists are updated position
// by position; maps and sets keep the entries the new value does not name.
// `.all` replaces embedded objects (old accessors invalidated) and collections.

final class UMLeaf: EmbeddedObject {
    @Persisted var value = 0
    @Persisted var note = ""
}

final class UMNode: EmbeddedObject {
    @Persisted var value = 0
    @Persisted var child: UMLeaf?
    @Persisted var children: List<UMLeaf>
}

final class UMParent: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var object: UMNode?
    @Persisted var array: List<UMNode>
    @Persisted var tags: List<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var places: Map<String, UMLeaf?>
    @Persisted var codes: MutableSet<Int>
}

@Suite("update: .modified updates embedded objects and collections in place; .all replaces them")
struct UpdateModifiedTests {
    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory("update-modified")
        vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("parents.vault"), encryptionKey: testKey,
                                                             objectTypes: [UMLeaf.self, UMNode.self, UMParent.self]))
    }

    /// A parent with key 0 whose embedded objects hold `first`, `first + 1`, … (six of them), as Realm's test builds it.
    private func tree(startingAt first: Int) -> (parent: UMParent, embedded: [ObjectBase]) {
        var made: [ObjectBase] = []
        func leaf() -> UMLeaf { let leaf = UMLeaf(); leaf.value = first + made.count; made.append(leaf); return leaf }
        func node() -> UMNode { let node = UMNode(); node.value = first + made.count; made.append(node); return node }
        let parent = UMParent()
        let top = node()
        top.child = leaf()
        top.children.append(leaf())
        parent.object = top
        let element = node()
        element.child = leaf()
        element.children.append(leaf())
        parent.array.append(element)
        return (parent, made)
    }

    private func value(_ object: ObjectBase) -> Int {
        (object as? UMNode)?.value ?? (object as? UMLeaf)?.value ?? -1
    }

    @Test("with .modified the old embedded objects stay valid and read the new values (realm-swift's test)")
    func modifiedKeepsEmbeddedObjects() throws {
        let (parent, old) = tree(startingAt: 0)
        let (parent2, new) = tree(startingAt: 6)
        try vault.write {
            vault.add(parent)
            vault.add(parent2, update: .modified)
        }
        for (index, object) in (old + new).enumerated() {
            #expect(object.vault === vault)
            #expect(!object.isInvalidated, "embedded object \(index)")
            #expect(value(object) == (index < 6 ? index + 6 : index))
        }
        #expect(parent.isSameObject(as: parent2))
        #expect(parent.object?.value == 6 && parent.object?.child?.value == 7 && parent.object?.children.first?.value == 8)
        #expect(parent.array.first?.value == 9 && parent.array.first?.child?.value == 10)
    }

    @Test("with .all the old embedded objects are deleted and the new ones stored")
    func allReplacesEmbeddedObjects() throws {
        let (parent, old) = tree(startingAt: 0)
        let (parent2, new) = tree(startingAt: 6)
        try vault.write {
            vault.add(parent)
            vault.add(parent2, update: .all)
        }
        for object in old { #expect(object.isInvalidated) }
        for (index, object) in new.enumerated() {
            #expect(!object.isInvalidated)
            #expect(value(object) == index + 6)
        }
        #expect(parent.object?.value == 6 && parent.array.first?.children.first?.value == 11)
    }

    @Test("a partial create with .modified leaves an embedded object's other properties as they are")
    func partialCreateKeepsEmbeddedProperties() throws {
        try vault.write {
            vault.create(UMParent.self, value: ["id": 1, "object": ["value": 1, "child": ["value": 2, "note": "kept"]]])
        }
        let parent = try #require(vault.object(ofType: UMParent.self, forPrimaryKey: 1))
        let child = try #require(parent.object?.child)
        try vault.write {
            vault.create(UMParent.self, value: ["id": 1, "object": ["child": ["value": 3]]], update: .modified)
        }
        #expect(!child.isInvalidated)
        #expect(child.value == 3 && child.note == "kept", "only the given property is written")
        #expect(parent.object?.value == 1)
        // `.all` with the same partial value: the embedded objects are new, with defaults for what was not given.
        try vault.write {
            vault.create(UMParent.self, value: ["id": 1, "object": ["child": ["value": 4]]], update: .all)
        }
        #expect(child.isInvalidated)
        #expect(parent.object?.child?.value == 4 && parent.object?.child?.note == "")
    }

    @Test("with .modified a list is updated position by position: longer appends, shorter drops from the end")
    func listsByPosition() throws {
        try vault.write { vault.create(UMParent.self, value: ["id": 2, "array": [["value": 1], ["value": 2], ["value": 3]], "tags": ["a", "b", "c"]]) }
        let parent = try #require(vault.object(ofType: UMParent.self, forPrimaryKey: 2))
        let elements = Array(parent.array)
        try vault.write { vault.create(UMParent.self, value: ["id": 2, "array": [["value": 10], ["value": 20]], "tags": ["a", "x", "c", "d"]], update: .modified) }
        #expect(parent.array.map(\.value) == [10, 20])
        #expect(!elements[0].isInvalidated && !elements[1].isInvalidated && elements[2].isInvalidated)
        #expect(elements[0].value == 10 && elements[1].value == 20)
        #expect(Array(parent.tags) == ["a", "x", "c", "d"])
    }

    @Test("with .modified a map keeps the keys the value does not name and a set keeps its other values; .all replaces both")
    func mapsAndSetsMerge() throws {
        try vault.write {
            vault.create(UMParent.self, value: ["id": 3, "scores": ["a": 1, "b": 2], "places": ["home": ["value": 1, "note": "h"]], "codes": [1, 2]])
        }
        let parent = try #require(vault.object(ofType: UMParent.self, forPrimaryKey: 3))
        let home = try #require(parent.places["home"] ?? nil)
        try vault.write {
            vault.create(UMParent.self, value: ["id": 3, "scores": ["b": 5, "c": 3], "places": ["home": ["value": 2]], "codes": [2, 3]], update: .modified)
        }
        #expect(parent.scores.asKeyValueSequence().map { "\($0.key)=\($0.value)" } == ["a=1", "b=5", "c=3"])
        #expect(Set(parent.codes) == [1, 2, 3])
        #expect(!home.isInvalidated && home.value == 2 && home.note == "h", "the embedded map value is updated where it is")
        try vault.write {
            vault.create(UMParent.self, value: ["id": 3, "scores": ["z": 9], "places": ["home": ["value": 7]], "codes": [8]], update: .all)
        }
        #expect(parent.scores.asKeyValueSequence().map { "\($0.key)=\($0.value)" } == ["z=9"])
        #expect(Set(parent.codes) == [8])
        #expect(home.isInvalidated && parent.places["home"]??.value == 7)
    }

    @Test("adding an unchanged object with .modified reports no change to its collections' observers")
    func unchangedReportsNothing() throws {
        try vault.write { vault.create(UMParent.self, value: ["id": 4, "tags": ["a", "b"], "array": [["value": 1]]]) }
        let parent = try #require(vault.object(ofType: UMParent.self, forPrimaryKey: 4))
        let tags = Received<List<String>>(), nodes = Received<List<UMNode>>()
        let tokens = [parent.tags.observe { tags.changes.append($0) }, parent.array.observe { nodes.changes.append($0) }]
        defer { tokens.forEach { $0.invalidate() } }
        vault.refresh()
        try vault.write { vault.create(UMParent.self, value: ["id": 4, "tags": ["a", "b"], "array": [["value": 1]]], update: .modified) }
        vault.refresh()
        #expect(tags.updates.isEmpty, "nothing differed")
        #expect(nodes.updates.allSatisfy { $0.deletions.isEmpty && $0.insertions.isEmpty })
        try vault.write { vault.create(UMParent.self, value: ["id": 4, "tags": ["a", "c"]], update: .modified) }
        vault.refresh()
        let update = try #require(tags.updates.last)
        #expect(update.modifications == [1] && update.insertions.isEmpty && update.deletions.isEmpty)
    }
}
