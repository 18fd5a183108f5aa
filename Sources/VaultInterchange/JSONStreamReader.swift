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
    /// The keys seen so far in each object being read, innermost last: a key twice in
    /// one object is refused (RFC 8259 leaves it to the reader; an import must not guess).
    private var keysOfOpenObjects: [Set<String>] = []
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
    func beginObject() throws {
        try expect(UInt8(ascii: "{"), "an object")
        keysOfOpenObjects.append([])
    }

    /// Consumes `[`.
    func beginArray() throws { try expect(UInt8(ascii: "["), "an array") }

    /// The next key of the object being walked (its `:` consumed), or nil at its `}`.
    func nextKey(first: inout Bool) throws -> String? {
        guard let byte = try peekNonSpace() else { throw error("the document ends inside an object") }
        if byte == UInt8(ascii: "}") {
            position += 1
            keysOfOpenObjects.removeLast()
            return nil
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw error("expected ',' or '}' in an object") }
            position += 1
        }
        first = false
        guard try peekNonSpace() == UInt8(ascii: "\"") else { throw error("expected a key (a string)") }
        let start = offset
        let key = try readString()
        // The key itself is not named: a dictionary's keys are stored values.
        guard var keys = keysOfOpenObjects.popLast() else { throw error("a key outside an object") }
        guard keys.insert(key).inserted else { throw JSONSyntaxError(offset: start, reason: "a key appears twice in one object") }
        keysOfOpenObjects.append(keys)
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

    /// The next byte that is not white space, not consumed (nil at the end).
    func peekNonSpaceByte() throws -> UInt8? { try peekNonSpace() }

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
            keysOfOpenObjects.append([])
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
        let start = offset
        var bytes: [UInt8] = []
        while let next = try peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) || next == UInt8(ascii: "-")
                || next == UInt8(ascii: "+") || next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            bytes.append(next)
            position += 1
            guard bytes.count <= 64 else { throw error("a number of more than 64 characters") }
        }
        guard Self.isJSONNumber(bytes) else {
            throw JSONSyntaxError(offset: start, reason: "a number that is not written as JSON writes numbers (RFC 8259: no leading zeros, digits on both sides of a point)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// Reads past the next value without building it (a member the import does not
    /// use): memory stays constant whatever its size; its syntax is still checked.
    func skipValue(depth: Int = 0) throws {
        guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
        guard let byte = try peekNonSpace() else { throw error("the document ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"):
            try beginObject()
            var first = true
            while try nextKey(first: &first) != nil { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            try beginArray()
            var first = true
            while try nextElement(first: &first) { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): try readString(keeping: false)
        default: _ = try readValue(depth: depth)
        }
    }

    private func readString() throws -> String { try readString(keeping: true) }

    /// Reads a string, its UTF-8 checked as it comes. The bytes pass through a buffer of a
    /// few chunks into the string (a long string is held once, not as bytes and again as a
    /// string); without `keeping`, nothing is held (a skipped string takes no memory).
    @discardableResult
    private func readString(keeping: Bool) throws -> String {
        try expect(UInt8(ascii: "\""), "a string")
        var text = ""
        var bytes: [UInt8] = []
        var checked = 0
        while true {
            // The run of plain bytes up to the next quote, backslash or control character, at once.
            let run = plainRunLength()
            if run > 0 {
                bytes.append(contentsOf: buffer[position..<(position + run)])
                position += run
            }
            let next = try byte()
            switch next {
            case UInt8(ascii: "\""):
                guard Self.isUTF8(bytes[checked...], complete: true) != nil else { throw error("a string that is not UTF-8") }
                if keeping { text += String(decoding: bytes, as: UTF8.self) }
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
            if bytes.count - checked >= Self.chunk {
                guard let end = Self.isUTF8(bytes[checked...], complete: false) else { throw error("a string that is not UTF-8") }
                if keeping { text += String(decoding: bytes[..<end], as: UTF8.self) }
                bytes.removeSubrange(0..<end)
                checked = 0
            }
        }
    }

    /// How many bytes from the current position, within the buffer, need no attention in a string.
    private func plainRunLength() -> Int {
        buffer.withUnsafeBufferPointer { bytes in
            var end = position
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                end += 1
            }
            return end - position
        }
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or values past
    /// U+10FFFF); returns the index where checking stopped. Unless `complete`, a sequence
    /// cut at the end is left for the next call rather than refused.
    static func isUTF8(_ bytes: ArraySlice<UInt8>, complete: Bool) -> Int? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lead = bytes[index]
            if lead < 0x80 { index += 1; continue }
            let length: Int, low: UInt8, high: UInt8
            switch lead {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            default: return nil
            }
            guard bytes.endIndex - index >= length else { return complete ? nil : index }
            guard (low...high).contains(bytes[index + 1]) else { return nil }
            for offset in 2..<max(length, 2) where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
            index += length
        }
        return index
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
