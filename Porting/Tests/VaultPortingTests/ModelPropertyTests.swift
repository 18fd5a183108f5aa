import Testing
import VaultPorting

@Suite("Rule 3: legacy model properties")
struct ModelPropertyTests {
    @Test func dynamicPropertiesBecomePersisted() {
        let input = """
            class SwiftStringObject: Object {
                @objc dynamic var stringCol = ""
                @objc dynamic var intCol: Int = 0
                @objc dynamic var optDateCol: Date? = nil
                @objc dynamic var optStringCol: String? = "x"
                @objc public dynamic var objectCol: SwiftBoolObject?
                dynamic var doubleCol = 1.5
                @objc dynamic var computed: Int { intCol * 2 }
                var notStored = 0
                @Persisted var modern = 1
            }
            """
        #expect(ported(input) == """
            class SwiftStringObject: Object {
                @Persisted var stringCol = ""
                @Persisted var intCol: Int = 0
                @Persisted var optDateCol: Date?
                @Persisted var optStringCol: String? = "x"
                @Persisted public var objectCol: SwiftBoolObject?
                @Persisted var doubleCol = 1.5
                @objc dynamic var computed: Int { intCol * 2 }
                var notStored = 0
                @Persisted var modern = 1
            }
            """)
    }

    @Test func onlyModelClassesAreTouched() {
        let input = """
            class ViewModel: NSObject {
                @objc dynamic var title = ""
            }
            class Base: Object {}
            class Derived: Base {
                @objc dynamic var name = ""
            }
            """
        #expect(ported(input) == """
            class ViewModel: NSObject {
                @objc dynamic var title = ""
            }
            class Base: Object {}
            class Derived: Base {
                @Persisted var name = ""
            }
            """)
    }

    @Test func collectionsBecomePersistedCollections() {
        let input = """
            class SwiftListObject: EmbeddedObject {
                let int = List<Int>()
                let set = MutableSet<String>()
                let map = Map<String, AnyRealmValue>()
                let typed: List<SwiftStringObject> = List<SwiftStringObject>()
                let owners = LinkingObjects(fromType: SwiftOwnerObject.self, property: "dogs")
            }
            """
        #expect(ported(input) == """
            class SwiftListObject: EmbeddedObject {
                @Persisted var int: List<Int>
                @Persisted var set: MutableSet<String>
                @Persisted var map: Map<String, AnyVaultValue>
                @Persisted var typed: List<SwiftStringObject>
                @Persisted(originProperty: "dogs") var owners: LinkingObjects<SwiftOwnerObject>
            }
            """)
    }

    @Test func optionalWrappersAndTheirValueAccesses() {
        let input = """
            class SwiftOptionalObject: Object {
                let optIntCol = RealmOptional<Int>()
                let optDoubleCol = RealmProperty<Double?>()
                func bump() { optIntCol.value = (optIntCol.value ?? 0) + 1 }
            }
            func use(_ object: SwiftOptionalObject, other: Unrelated) {
                object.optIntCol.value = 3
                let copy = SwiftOptionalObject()
                print(copy.optDoubleCol.value ?? 0, other.optIntCol.value)
                let slider = Slider()
                print(slider.value)
            }
            """
        let result = Porter.port(source: input, file: "O.swift")
        #expect(result.ported == """
            class SwiftOptionalObject: Object {
                @Persisted var optIntCol: Int?
                @Persisted var optDoubleCol: Double?
                func bump() { optIntCol = (optIntCol ?? 0) + 1 }
            }
            func use(_ object: SwiftOptionalObject, other: Unrelated) {
                object.optIntCol = 3
                let copy = SwiftOptionalObject()
                // vault port: `other` has type `Unrelated`, not a model declared in the ported files; remove `.value` by hand if `optIntCol` is a ported RealmOptional/RealmProperty
                print(copy.optDoubleCol ?? 0, other.optIntCol.value)
                let slider = Slider()
                print(slider.value)
            }
            """)
        #expect(result.notPortable.map(\.line) == [9])
    }

    @Test func unportablePropertiesAreReportedAndLeft() {
        let input = """
            class Odd: Object {
                @objc(first_name) dynamic var firstName = ""
                @objc dynamic var a = 0, b = 0
                let x = RealmOptional<Int>(5)
            }
            """
        let result = Porter.port(source: input, file: "Odd.swift")
        #expect(result.ported == """
            class Odd: Object {
                // vault port: `@objc(…)` gives the stored property another name; port it by hand (propertiesMapping)
                @objc(first_name) dynamic var firstName = ""
                // vault port: several properties in one declaration; split them first
                @objc dynamic var a = 0, b = 0
                let x = VaultOptional<Int>(5)
            }
            """)
        #expect(result.notPortable.map(\.line) == [2, 3])
    }

    @Test func wrappersOutsideModelDeclarationsKeepRealmsMeaningUnderVaultKitsNames() {
        let input = """
            func describe(_ age: RealmOptional<Int>, _ score: RealmProperty<Double?>) -> String {
                let copy = RealmOptional<Int>()
                copy.value = age.value
                return "\\(copy.value ?? 0) \\(score.value ?? 0)"
            }
            """
        let result = Porter.port(source: input, file: "W.swift")
        #expect(result.ported == """
            func describe(_ age: VaultOptional<Int>, _ score: VaultProperty<Double?>) -> String {
                let copy = VaultOptional<Int>()
                copy.value = age.value
                return "\\(copy.value ?? 0) \\(score.value ?? 0)"
            }
            """)
        #expect(result.notPortable.isEmpty)
        #expect(Porter.port(source: result.ported, file: "W.swift").changes.isEmpty)
    }

    @Test func modernCodeIsUnchanged() {
        let input = """
            import VaultKit

            final class Person: Object {
                @Persisted(primaryKey: true) var _id: ObjectId
                @Persisted var friends: List<Person>
                @Persisted(originProperty: "friends") var friendOf: LinkingObjects<Person>
            }
            """
        let result = Porter.port(source: input)
        #expect(result.ported == input)
        #expect(result.changes.isEmpty && result.notPortable.isEmpty)
    }
}
