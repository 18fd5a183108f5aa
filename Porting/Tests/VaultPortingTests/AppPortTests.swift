import Foundation
import Testing
import VaultPorting

@Suite("A realistic legacy app")
struct AppPortTests {
    @Test func portsTheAppFile() {
        let result = Porter.port(source: LegacyApp.source, file: "App.swift")
        #expect(result.ported == LegacyApp.expected)
    }

    @Test func portingIsIdempotent() {
        let once = Porter.port(source: LegacyApp.source, file: "App.swift")
        let twice = Porter.port(source: once.ported, file: "App.swift")
        #expect(twice.ported == once.ported)
        #expect(twice.changes.isEmpty)
    }

    @Test func reportsWhatItCouldNotPort() {
        let result = Porter.port(source: LegacyApp.source, file: "App.swift")
        #expect(result.notPortable.map(\.line) == [61, 104])
        #expect(result.notPortable.map(\.reason) == [
            "`className()` renames the class to \"Tag\"; VaultKit names a class after its Swift name",
            "cannot prove that `person.age` is a ported RealmOptional/RealmProperty; remove `.value` by hand if it is",
        ])
        let rules = Set(result.changes.map(\.rule))
        #expect(rules == ["imports", "type-renames", "model-properties", "schema-overrides", "optional-values", "enums", "class-names"])
    }

    @Test func modelsInOneFileArePortedInAnother() {
        let results = Porter.port([
            PortInput(file: "Models.swift", text: "class Base: Object {}\nclass Dog: Base {\n    let age = RealmOptional<Int>()\n}\n"),
            PortInput(file: "Use.swift", text: "func f(dog: Dog) { dog.age.value = 1 }\n"),
        ])
        #expect(results[0].ported == "class Base: Object {}\nclass Dog: Base {\n    @Persisted var age: Int?\n}\n")
        #expect(results[1].ported == "func f(dog: Dog) { dog.age = 1 }\n")
    }

    @Test func aFileThatDoesNotParseIsLeftAlone() {
        let source = "import RealmSwift\nclass Dog: Object {\n    @objc dynamic var x = \n"
        let result = Porter.port(source: source, file: "Bad.swift")
        #expect(result.ported == source)
        #expect(result.notPortable.count == 1)
    }
}
