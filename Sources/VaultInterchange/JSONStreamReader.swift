import Foundation

/// A JSON value, as the stream reader builds it for one object at a time. Numbers keep
/// their text, so that 64-bit integers and doubles convert exactly.
indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member `key` of an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A short name of the kind, for error messages (never the value).
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A malformed document: where (byte offset) and what.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String
    var description: String { "malformed JSON at byte \(offset): \(reason)" }
}

/// Reads a JSON document from a file a chunk at a time: the caller walks the outer
/// structure (objects and arrays, key by key, element by element) and reads the
/// small values inside whole, so memory holds one object, whatever the file's size.
final class JSONStreamReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var consumed = 0
    private var atEnd = false
    private static let chunk = 1 << 16
    /// Nesting limit of one value (a document deeper than this is refused, not followed).
    private static let maximumDepth = 512

    init(url: URL) throws {
        handle = try FileHandle(forReadingFrom: url)
    }

    deinit { try? handle.close() }

    /// The byte offset of the next unread byte.
    var offset: Int { consumed + position }

    // MARK: Walking the structure

    /// Consumes `{`.
    func beginObject() throws { try expect(UInt8(ascii: "{"), "an object") }

    /// Consumes `[`.
    func beginArray() throws { try expect(UInt8(ascii: "["), "an array") }

    /// The next key of the object being walked (its `:` consumed), or nil at its `}`.
    func nextKey(first: inout Bool) throws -> String? {
        guard let byte = try peekNonSpace() else { throw error("the document ends inside an object") }
        if byte == UInt8(ascii: "}") { position += 1; return nil }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw error("expected ',' or '}' in an object") }
            position += 1
        }
        first = false
        guard try peekNonSpace() == UInt8(ascii: "\"") else { throw error("expected a key (a string)") }
        let key = try readString()
        try expect(UInt8(ascii: ":"), "':' after a key")
        return key
    }

    /// Whether the array being walked has another element (its `,` consumed); false at its `]`.
    func nextElement(first: inout Bool) throws -> Bool {
        guard let byte = try peekNonSpace() else { throw error("the document ends inside an array") }
        if byte == UInt8(ascii: "]") { position += 1; return false }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw error("expected ',' or ']' in an array") }
            position += 1
        }
        first = false
        return true
    }

    /// Checks that nothing but white space follows the document.
    func finish() throws {
        if try peekNonSpace() != nil { throw error("text after the end of the document") }
    }

    // MARK: Values

    /// Reads the next value whole.
    func readValue(depth: Int = 0) throws -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
        guard let byte = try peekNonSpace() else { throw error("the document ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"):
            position += 1
            var members: [(key: String, value: JSONValue)] = []
            var first = true
            while let key = try nextKey(first: &first) { members.append((key, try readValue(depth: depth + 1))) }
            return .object(members)
        case UInt8(ascii: "["):
            position += 1
            var elements: [JSONValue] = []
            var first = true
            while try nextElement(first: &first) { elements.append(try readValue(depth: depth + 1)) }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw error("unexpected character")
        }
    }

    private func literal(_ word: String) throws {
        for expected in word.utf8 {
            guard try byte() == expected else { throw error("expected \(word)") }
        }
    }

    private func readNumber() throws -> String {
        var bytes: [UInt8] = []
        while let next = try peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) || next == UInt8(ascii: "-")
                || next == UInt8(ascii: "+") || next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            bytes.append(next)
            position += 1
            guard bytes.count <= 64 else { throw error("a number of more than 64 characters") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func readString() throws -> String {
        try expect(UInt8(ascii: "\""), "a string")
        var bytes: [UInt8] = []
        while true {
            let next = try byte()
            switch next {
            case UInt8(ascii: "\""):
                guard let text = String(validating: bytes, as: UTF8.self) else { throw error("a string that is not UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                let escape = try byte()
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard try byte() == UInt8(ascii: "\\"), try byte() == UInt8(ascii: "u") else { throw error("an unpaired surrogate") }
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("an unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape") }
                    bytes += Array(String(Character(unicode)).utf8)
                default: throw error("an invalid escape")
                }
            case 0..<0x20: throw error("a control character inside a string")
            default: bytes.append(next)
            }
        }
    }

    private func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit = try byte()
            let nibble: UInt32
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt32(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt32(digit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt32(digit - UInt8(ascii: "A") + 10)
            default: throw error("an invalid \\u escape")
            }
            value = value << 4 | nibble
        }
        return value
    }

    // MARK: Bytes

    private func expect(_ expected: UInt8, _ what: String) throws {
        guard try peekNonSpace() == expected else { throw error("expected \(what)") }
        position += 1
    }

    private func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: offset, reason: reason) }

    private func fill() throws -> Bool {
        guard !atEnd else { return false }
        consumed += position
        buffer.removeFirst(position)
        position = 0
        let data = try handle.read(upToCount: Self.chunk) ?? Data()
        if data.isEmpty { atEnd = true; return false }
        buffer += data
        return true
    }

    private func peek() throws -> UInt8? {
        if position >= buffer.count, !(try fill()) { return nil }
        return buffer[position]
    }

    private func byte() throws -> UInt8 {
        guard let next = try peek() else { throw error("the document ends too early") }
        position += 1
        return next
    }

    private func peekNonSpace() throws -> UInt8? {
        while let next = try peek() {
            guard next == 0x20 || next == 0x0A || next == 0x0D || next == 0x09 else { return next }
            position += 1
        }
        return nil
    }
}
