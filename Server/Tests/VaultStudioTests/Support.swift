import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore
import VaultInterchange
import VaultKit

final class StudioPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var score: Double?
    @Persisted var dog: StudioDog?
    @Persisted var friends: List<StudioPerson>
    @Persisted var born: Date?
    @Persisted var address: StudioAddress?
    @Persisted var labels: Map<String, String?>
}

final class StudioAddress: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var street = ""
}

final class StudioDog: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var breed: String?
}

final class StudioNote: Object {
    @Persisted var text = ""
}

/// Every kind of scalar property a form edits, required and optional, in a class without a primary key.
final class StudioKinds: Object {
    @Persisted var text = ""
    @Persisted var optionalText: String?
    @Persisted var number = 0
    @Persisted var optionalNumber: Int?
    @Persisted var real = 0.0
    @Persisted var optionalReal: Double?
    @Persisted var single: Float = 0
    @Persisted var optionalSingle: Float?
    @Persisted var flag = false
    @Persisted var optionalFlag: Bool?
    @Persisted var decimal = Decimal128()
    @Persisted var optionalDecimal: Decimal128?
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var optionalDate: Date?
    @Persisted var bytes = Data()
    @Persisted var optionalBytes: Data?
    @Persisted var uuid = UUID()
    @Persisted var optionalUUID: UUID?
    @Persisted var objectId = ObjectId()
    @Persisted var optionalObjectId: ObjectId?
    @Persisted var mixed: AnyVaultValue
}

/// A temporary directory with a key file and a vault of people, dogs and notes; removed on deinit.
final class StudioFixture: @unchecked Sendable {
    let directory: URL
    let vaultURL: URL
    let keyFile: URL
    let key: MasterKey

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-studio-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        vaultURL = directory.appendingPathComponent("people.vault")
        keyFile = directory.appendingPathComponent("people.vaultkey")
        key = try MasterKey.generate()
        try FileKeyStore.writeKeyFile(key, identifier: "studio", to: keyFile, passphrase: nil)
        try populate()
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    private var configuration: Vault.Configuration {
        var configuration = Vault.Configuration(fileURL: vaultURL, objectTypes: [StudioPerson.self, StudioDog.self, StudioNote.self, StudioAddress.self, StudioKinds.self])
        configuration.masterKey = key
        return configuration
    }

    /// 60 people (ids 1…60, "Person 1"…), two dogs, two notes; person 1 has dog Rex and friends 2 and 3.
    private func populate() throws {
        let vault = try Vault(configuration: configuration, isolation: nil)
        try vault.write {
            let rex = StudioDog(value: ["name": "Rex", "breed": "Collie"])
            vault.add(rex)
            vault.add(StudioDog(value: ["name": "Fido"]))
            var people: [StudioPerson] = []
            for id in 1...60 {
                let person = StudioPerson(value: ["id": id, "name": "Person \(id)", "age": 20 + id % 30])
                vault.add(person)
                people.append(person)
            }
            people[0].dog = rex
            people[0].address = StudioAddress(value: ["city": "Oslo", "street": "Karl Johans gate"])
            people[0].friends.append(people[1])
            people[0].friends.append(people[2])
            people[0].labels["team"] = "blue"
            people[0].labels["desk"] = .some(nil)
            vault.add(StudioNote(value: ["text": "first <note>"]))
            vault.add(StudioNote(value: ["text": "second"]))
            for kinds in Self.kindsObjects() { vault.add(kinds) }
        }
    }

    /// Three objects of every kind: awkward values (spaces, a right-to-left override,
    /// sub-microsecond dates, NaN, long decimals) and one with every optional nil.
    static func kindsObjects() -> [StudioKinds] {
        let first = StudioKinds()
        first.text = "  spaced \u{202E}reversed  "
        first.optionalText = "user81@example.com"
        first.number = -42
        first.optionalNumber = 121
        first.real = 0.1 + 0.2
        first.optionalReal = -1e-300
        first.single = 3.4028235e38
        first.optionalSingle = 1.1
        first.flag = true
        first.optionalFlag = false
        first.decimal = (try? Decimal128(string: "1234567890.0987654321")) ?? Decimal128()
        first.optionalDecimal = (try? Decimal128(string: "-0.5")) ?? Decimal128()
        first.date = Date(timeIntervalSinceReferenceDate: 789_012_345.123456789)
        first.optionalDate = Date(timeIntervalSince1970: -1_234_567.5)
        first.bytes = Data([0, 1, 2, 254, 255])
        first.optionalBytes = Data("hello".utf8)
        first.uuid = UUID(uuidString: "7E0F4A6B-0C5B-4B1E-9D6A-2C1E8B3F4A5D") ?? UUID()
        first.optionalUUID = UUID(uuidString: "00000000-0000-0000-0000-000000000001")
        first.objectId = (try? ObjectId(string: "65a1b2c3d4e5f60718293a4b")) ?? ObjectId()
        first.optionalObjectId = (try? ObjectId(string: "000000000000000000000001")) ?? ObjectId()
        first.mixed = .string("mixed text")
        let second = StudioKinds()
        second.text = ""
        second.real = .nan
        second.single = -.infinity
        second.date = Date(timeIntervalSinceReferenceDate: -0.000_001)
        second.mixed = .double(2.5)
        let third = StudioKinds()
        third.text = "third"
        third.mixed = .date(Date(timeIntervalSinceReferenceDate: 12.25))
        return [first, second, third]
    }

    /// A key store directory holding the same key as `id`.
    func makeKeyStore(id: String) throws -> URL {
        let keystore = directory.appendingPathComponent("keys")
        try FileKeyStore(directory: keystore).storeKey(key, identifier: id)
        return keystore
    }

    /// Reads a person's birth date back with the model classes.
    func personBorn(_ id: Int) throws -> Date? {
        let vault = try Vault(configuration: configuration, isolation: nil)
        return vault.object(ofType: StudioPerson.self, forPrimaryKey: id)?.born
    }

    /// The vault with its model classes (after the studio has stopped).
    func openVault() throws -> Vault {
        try Vault(configuration: configuration, isolation: nil)
    }

    /// Reads a value back with the model classes (after the studio has stopped).
    func personName(_ id: Int) throws -> String? {
        let vault = try Vault(configuration: configuration, isolation: nil)
        return vault.object(ofType: StudioPerson.self, forPrimaryKey: id)?.name
    }
}

enum StudioTestError: Error, CustomStringConvertible {
    case message(String)
    var description: String { if case .message(let text) = self { text } else { "" } }
}

/// The built `vault-studio` executable, beside the test bundle.
func studioExecutable() throws -> URL {
    var starts = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(), Bundle.main.bundleURL]
    starts += Bundle.allBundles.map(\.bundleURL)
    for start in starts {
        var directory = start.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("vault-studio")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
    }
    throw StudioTestError.message("vault-studio is not built next to the tests (run swift build first)")
}

/// A running `vault-studio`, stopped with SIGTERM by ``stop()`` (or on deinit).
final class StudioProcess: @unchecked Sendable {
    let process = Process()
    let baseURL: String
    private let output = Pipe()
    private let errors = Pipe()

    convenience init(fixture: StudioFixture, extraArguments: [String] = [], keyArguments: [String]? = nil) throws {
        try self.init(vaultPath: fixture.vaultURL.path, keyArguments: keyArguments ?? ["--key-file", fixture.keyFile.path], extraArguments: extraArguments)
    }

    init(vaultPath: String, keyArguments: [String], extraArguments: [String] = []) throws {
        process.executableURL = try studioExecutable()
        process.arguments = [vaultPath] + keyArguments + extraArguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The first line of standard output is the URL.
        var bytes: [UInt8] = []
        let handle = output.fileHandleForReading
        while !bytes.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            bytes += chunk
        }
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw StudioTestError.message("vault-studio printed no URL: \(message)")
        }
        baseURL = String(decoding: bytes[..<newline], as: UTF8.self)
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

struct HTTPResult {
    let status: Int
    let body: String
    let headers: [AnyHashable: Any]
}

/// A session that follows redirects (URLSession's default).
func http(_ url: String, method: String = "GET", form: [String: String]? = nil) async throws -> HTTPResult {
    guard let target = URL(string: url) else { throw StudioTestError.message("bad URL \(url)") }
    var request = URLRequest(url: target)
    request.httpMethod = method
    if let form {
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        request.httpBody = Data(form.map { "\($0.key.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&").utf8)
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    guard let http = response as? HTTPURLResponse else { throw StudioTestError.message("not an HTTP response") }
    return HTTPResult(status: http.statusCode, body: String(decoding: data, as: UTF8.self), headers: http.allHeaderFields)
}

/// A vault of runtime classes imported from JSON, with names no Swift model can have:
/// a class named `..`, a link property whose name is query text, a property name
/// holding a right-to-left override, a 1 MB string; removed on deinit.
final class StudioOddFixture: @unchecked Sendable {
    let directory: URL
    let vaultURL: URL
    let keyFile: URL
    /// The link property's name: query text if it were ever pasted into a query.
    static let injectionName = "x==nil||TRUEPREDICATE||x"
    static let rtlName = "rtl \u{202E}name"
    static let longValue = String(repeating: "0123456789", count: 100_000)

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-studio-odd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        vaultURL = directory.appendingPathComponent("odd.vault")
        keyFile = directory.appendingPathComponent("odd.vaultkey")
        let key = try MasterKey.generate()
        try FileKeyStore.writeKeyFile(key, identifier: "odd", to: keyFile, passphrase: nil)
        let null = NSNull()
        let document: [String: Any] = ["schemaVersion": 1, "classes": [
            "..": ["embedded": false, "properties": [["name": "label", "type": "string", "optional": false, "collection": null]],
                   "objects": [["label": "dots"]]],
            "Target": ["embedded": false, "primaryKey": "name",
                       "properties": [["name": "name", "type": "string", "optional": false, "collection": null, "primaryKey": true, "indexed": true]],
                       "objects": [["name": "a"], ["name": "b"]]],
            "Source": ["embedded": false, "properties": [
                ["name": Self.injectionName, "type": "object", "objectType": "Target", "optional": true, "collection": null],
                ["name": "long", "type": "string", "optional": true, "collection": null],
                ["name": Self.rtlName, "type": "string", "optional": true, "collection": null],
            ], "objects": [
                [Self.injectionName: "a", "long": Self.longValue, Self.rtlName: "abc\u{202E}def"],
                [Self.injectionName: null, "long": null, Self.rtlName: null],
            ]],
        ]]
        let source = directory.appendingPathComponent("odd.json")
        try JSONSerialization.data(withJSONObject: document).write(to: source)
        var configuration = Vault.Configuration(fileURL: vaultURL)
        configuration.masterKey = key
        try CanonicalJSONImport.importDocument(at: source, into: configuration)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// `vault-studio` on this vault.
    func start() throws -> StudioProcess {
        try StudioProcess(vaultPath: vaultURL.path, keyArguments: ["--key-file", keyFile.path])
    }
}
