import Testing
import VaultPorting

@Suite("Rule 3: schema overrides, enums and class names")
struct SchemaOverrideTests {
    @Test func primaryIndexedAndIgnoredMoveOntoProperties() {
        let input = """
            class SwiftPrimaryStringObject: Object {
                @objc dynamic var stringCol = ""
                @objc dynamic var intCol = 0
                @objc dynamic var scratch = 0
                @Persisted var title = ""

                override class func primaryKey() -> String? {
                    return "stringCol"
                }

                override class func indexedProperties() -> [String] { ["intCol", "title"] }
                override class func ignoredProperties() -> [String] { return ["scratch"] }
            }
            """
        #expect(ported(input) == """
            class SwiftPrimaryStringObject: Object {
                @Persisted(primaryKey: true) var stringCol = ""
                @Persisted(indexed: true) var intCol = 0
                var scratch = 0
                @Persisted(indexed: true) var title = ""
            }
            """)
    }

    @Test func computedOverridesAreReportedAndLeft() {
        let input = """
            class Computed: Object {
                @objc dynamic var a = 0
                @objc dynamic var b = 0
                override static func primaryKey() -> String? { Self.key }
                override static func ignoredProperties() -> [String] { names() }
            }
            """
        let result = Porter.port(source: input, file: "C.swift")
        #expect(result.ported == """
            class Computed: Object {
                @objc dynamic var a = 0
                @objc dynamic var b = 0
                // vault port: `primaryKey()` does not return a plain literal; port it by hand with `@Persisted(…)`
                override static func primaryKey() -> String? { Self.key }
                // vault port: `ignoredProperties()` does not return a plain literal; port it by hand with `@Persisted(…)`
                override static func ignoredProperties() -> [String] { names() }
            }
            """)
        #expect(result.notPortable.map(\.line) == [4, 5])
    }

    @Test func aKeyNamingAMissingPropertyIsReported() {
        let result = Porter.port(source: """
            class Missing: Object {
                @objc dynamic var a = 0
                override static func primaryKey() -> String? { "b" }
            }
            """)
        #expect(result.ported.contains("// vault port: `primaryKey()` names `b`, which is not declared in this class"))
        #expect(result.ported.contains("@Persisted var a = 0"))
    }

    @Test func realmEnumsBecomePersistableEnums() {
        let input = """
            @objc enum IntEnum: Int, RealmEnum, CaseIterable {
                case value1 = 1
                case value2 = 3
            }
            class SwiftEnumObject: Object {
                @objc dynamic var intEnumCol = IntEnum.value1
            }
            """
        #expect(ported(input) == """
            enum IntEnum: Int, PersistableEnum, CaseIterable {
                case value1 = 1
                case value2 = 3
            }
            class SwiftEnumObject: Object {
                @Persisted var intEnumCol = IntEnum.value1
            }
            """)
    }

    @Test func classNameOverridesAndCalls() {
        let input = """
            @objcMembers class Same: Object {
                dynamic var a = 0
                override class func className() -> String { "Same" }
            }
            class Renamed: Object {
                override class func className() -> String { return "Other" }
            }
            let names = [Same.className(), Renamed.className(), type(of: Same()).className()]
            """
        let result = Porter.port(source: input, file: "N.swift")
        #expect(result.ported == """
            class Same: Object {
                @Persisted var a = 0
            }
            class Renamed: Object {
                // vault port: `className()` renames the class to "Other"; VaultKit names a class after its Swift name
                override class func className() -> String { return "Other" }
            }
            // vault port: `Renamed` overrides `className()`; VaultKit names a class after its Swift name
            let names = [String(describing: Same.self), Renamed.className(), type(of: Same()).className()]
            """)
        #expect(result.notPortable.map(\.line) == [6, 8])
    }

    @Test func reportsDoNotRepeatOnASecondRun() {
        let input = """
            class Renamed: Object {
                override class func className() -> String { return "Other" }
            }
            """
        let once = ported(input)
        #expect(ported(once) == once)
    }
}
