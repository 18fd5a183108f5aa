import Testing
@testable import VaultKit

/// The stored definition's line spelling: names with spaces kept exactly, older lines read as they were written.
@Suite("Stored definition lines")
struct StoredDefinitionLineTests {
    @Test("a line whose fields hold a space is a JSON array and reads back exactly; others stay plain")
    func roundTrip() {
        for fields in [["a b", "string", "optional", "plain"], [" a", "int", "required", "indexed"], ["z ", "list<My Class>", "required", "plain"],
                       ["[x]", "string", "optional", "plain"], ["q\"t'", "My Class", "optional", "plain"], ["name", "string", "required", "primary"]] {
            let line = StoredDefinitionLine.encode(fields)
            #expect(StoredDefinitionLine.decode(Substring(line)) == fields, "\(line)")
        }
        #expect(StoredDefinitionLine.encode(["name", "string", "required", "primary"]) == "name string required primary")
    }

    @Test("lines written by earlier builds, spaces in the name included, read as they were written")
    func olderLines() {
        #expect(StoredDefinitionLine.decode("age int required plain") == ["age", "int", "required", "plain"])
        #expect(StoredDefinitionLine.decode("first name string optional plain") == ["first name", "string", "optional", "plain"])
        #expect(StoredDefinitionLine.decode("a  b list<int> required indexed") == ["a  b", "list<int>", "required", "indexed"])
        #expect(StoredDefinitionLine.decode("tags list<My Tag> required plain") == ["tags", "list<My Tag>", "required", "plain"])
        #expect(StoredDefinitionLine.decode("_id int required primary-rowid") == ["_id", "int", "required", "primary-rowid"])
    }
}
