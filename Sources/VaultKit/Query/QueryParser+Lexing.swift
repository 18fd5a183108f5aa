import Foundation
import VaultCore

/// Literals and the lexing helpers of the query parser.
extension QueryParser {
    // MARK: Literals

    mutating func parseString() throws(QueryError) -> String {
        let start = position
        guard let quote = peekByte(), quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") else {
            throw QueryError("expected a quoted string, found \(describeToken())", at: position)
        }
        position += 1
        var buffer: [UInt8] = []
        while true {
            guard let byte = peekByte() else { throw QueryError("the string starting here is not closed", at: start) }
            position += 1
            if byte == quote { break }
            if byte == UInt8(ascii: "\\") {
                guard let escaped = peekByte() else { throw QueryError("the string starting here is not closed", at: start) }
                position += 1
                switch escaped {
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "0"): buffer.append(0x00)
                case UInt8(ascii: "u"):
                    let hexStart = position
                    guard position + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(code) else {
                        throw QueryError("\\u needs four hexadecimal digits of a valid character", at: hexStart - 2)
                    }
                    position += 4
                    buffer += Array(String(Character(scalar)).utf8)
                default: buffer.append(escaped)
                }
            } else {
                buffer.append(byte)
            }
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    mutating func parseNumber() throws(QueryError) -> QueryValue {
        let start = position
        if peekByte() == UInt8(ascii: "-") || peekByte() == UInt8(ascii: "+") { position += 1 }
        if peekByte() == UInt8(ascii: "0"), let x = peekByte(1), x | 0x20 == UInt8(ascii: "x") {
            position += 2
            let digits = readWhile { isHexDigit($0) }
            guard let value = Int64(digits, radix: 16) else { throw QueryError("'\(slice(start, position))' is not a valid hexadecimal number", at: start) }
            return .int(bytes[start] == UInt8(ascii: "-") ? -value : value)
        }
        _ = readWhile(isDigit)
        var isFloat = false
        if peekByte() == UInt8(ascii: "."), peekByte(1).map(isDigit) ?? true {
            isFloat = true
            position += 1
            _ = readWhile(isDigit)
        }
        if let e = peekByte(), e | 0x20 == UInt8(ascii: "e") {
            isFloat = true
            position += 1
            if peekByte() == UInt8(ascii: "-") || peekByte() == UInt8(ascii: "+") { position += 1 }
            guard !readWhile(isDigit).isEmpty else { throw QueryError("'\(slice(start, position))' is not a valid number", at: start) }
        }
        if let next = peekByte(), isIdentifierCharacter(next) {
            throw QueryError("'\(slice(start, position + 1))…' is not a valid number", at: start)
        }
        let literal = slice(start, position)
        if !isFloat, let value = Int64(literal) { return .int(value) }
        guard let value = Double(literal), value.isFinite || literal.contains("e") || literal.contains("E") else {
            throw QueryError("'\(literal)' is not a valid number", at: start)
        }
        return .double(value)
    }

    // MARK: Lexing helpers

    func peekByte(_ ahead: Int = 0) -> UInt8? {
        position + ahead < bytes.count ? bytes[position + ahead] : nil
    }

    func nextNonSpace(after index: Int) -> UInt8? {
        var probe = index
        while probe < bytes.count, isSpace(bytes[probe]) { probe += 1 }
        return probe < bytes.count ? bytes[probe] : nil
    }

    mutating func skipSpace() {
        while let byte = peekByte(), isSpace(byte) { position += 1 }
    }

    // Symbols and keywords are StaticStrings: matching them allocates nothing.
    mutating func consumeSymbol(_ symbol: StaticString) -> Bool {
        skipSpace()
        let length = symbol.utf8CodeUnitCount
        guard position + length <= bytes.count else { return false }
        let start = symbol.utf8Start
        for offset in 0..<length where bytes[position + offset] != start[offset] { return false }
        position += length
        return true
    }

    /// Consumes `word` (case-insensitive) when it stands alone (not a prefix of a longer name).
    mutating func consumeKeyword(_ word: StaticString) -> Bool {
        skipSpace()
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count else { return false }
        let start = word.utf8Start
        for offset in 0..<length {
            let expected = start[offset]
            let actual = bytes[position + offset]
            guard actual == expected || (isLetter(expected) && actual | 0x20 == expected | 0x20) else { return false }
        }
        if position + length < bytes.count, isIdentifierCharacter(bytes[position + length]), isIdentifierCharacter(start[length - 1]) {
            return false
        }
        position += length
        return true
    }

    func peekWord() -> String {
        var end = position
        while end < bytes.count, isIdentifierCharacter(bytes[end]) || (end == position && bytes[end] == UInt8(ascii: "@")) { end += 1 }
        return slice(position, end)
    }

    mutating func readWord() -> String {
        readWhile(isIdentifierCharacter)
    }

    mutating func readWhile(_ predicate: (UInt8) -> Bool) -> String {
        let start = position
        while let byte = peekByte(), predicate(byte) { position += 1 }
        return slice(start, position)
    }

    func slice(_ start: Int, _ end: Int) -> String {
        String(decoding: bytes[min(start, bytes.count)..<min(end, bytes.count)], as: UTF8.self)
    }

    func describeToken() -> String {
        guard position < bytes.count else { return "the end of the query" }
        var end = position
        if isIdentifierCharacter(bytes[position]) {
            while end < bytes.count, isIdentifierCharacter(bytes[end]) { end += 1 }
        } else {
            end += 1
            while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        }
        return "'\(slice(position, end))'"
    }
}

func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) }
func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
// Non-ASCII bytes belong to identifiers: Swift property names may use any letters.
func isIdentifierStart(_ byte: UInt8) -> Bool { isLetter(byte) || byte == UInt8(ascii: "_") || byte >= 0x80 }
func isIdentifierCharacter(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }
