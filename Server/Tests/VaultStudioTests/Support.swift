import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore
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
        var configuration = Vault.Configuration(fileURL: vaultURL, objectTypes: [StudioPerson.self, StudioDog.self, StudioNote.self, StudioAddress.self])
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
        }
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

    init(fixture: StudioFixture, extraArguments: [String] = [], keyArguments: [String]? = nil) throws {
        process.executableURL = try studioExecutable()
        process.arguments = [fixture.vaultURL.path] + (keyArguments ?? ["--key-file", fixture.keyFile.path]) + extraArguments
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
