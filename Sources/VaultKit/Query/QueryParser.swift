import Foundation
import VaultCore

/// Parses Realm's query language (the NSPredicate format subset Realm
/// accepts, plus `ALL`) into a ``QueryPredicate``, substituting arguments.
///
/// GRAMMAR (keywords are case-insensitive)
///
///     predicate   = or
///     or          = and { ("OR" | "||") and }
///     and         = not { ("AND" | "&&") not }
///     not         = ("NOT" | "!") not | "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
///     comparison  = [ANY | SOME | ALL | NONE] operand operator [ "[" c | d | cd "]" ] operand
///     operator    = == = != <> < <= =< > >= => BEGINSWITH ENDSWITH CONTAINS LIKE IN BETWEEN
///     operand     = keypath | literal | argument | "{" [operand {"," operand}] "}"
///                 | SUBQUERY "(" keypath "," $var "," predicate ")" ".@count"
///     keypath     = [$var "."] step { "." step }      step = name { "[" subscript "]" } | @count | @size | @min | @max | @sum | @avg | @allKeys | @allValues | @type
///     subscript   = 'key' | index | FIRST | LAST | SIZE | * | %@ | %K      (indexes, *, and @type: mixed values)
///     literal     = 'text' | "text" | number | true | false | nil | NULL | oid(hex) | uuid(text) | B64"base64" | T<seconds>:<nanoseconds>
///     argument    = %@ %K %d %i %ld %lld %f %lf %s %S | $0 $1 … (positional)
///
/// Offsets in errors are UTF-8 offsets into the query string.
struct QueryParser {
    let text: String
    let bytes: [UInt8]
    var position = 0
    let arguments: [Any?]
    var nextArgument = 0
    var highestPositional = -1
    var depth = 0
    static let maximumDepth = 200

    /// Parses `text` with `arguments` for its `%@`-style placeholders.
    static func parse(_ text: String, arguments: [Any?]) throws(QueryError) -> QueryPredicate {
        var parser = QueryParser(text: text, arguments: arguments)
        do {
            return try parser.parseWhole()
        } catch {
            throw error.located(in: text)
        }
    }

    init(text: String, arguments: [Any?]) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.arguments = arguments
    }

    mutating func parseWhole() throws(QueryError) -> QueryPredicate {
        skipSpace()
        guard position < bytes.count else { throw QueryError("the query is empty (use TRUEPREDICATE to match everything)", at: 0) }
        let predicate = try parseOr()
        skipSpace()
        guard position == bytes.count else { throw QueryError("unexpected \(describeToken()) after a complete predicate", at: position) }
        let used = max(nextArgument, highestPositional + 1)
        guard used == arguments.count else {
            throw QueryError("the query uses \(used) argument\(used == 1 ? "" : "s") but \(arguments.count) \(arguments.count == 1 ? "was" : "were") given")
        }
        return predicate
    }

    // MARK: Predicates

    mutating func enter() throws(QueryError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw QueryError("the query is nested more than \(Self.maximumDepth) levels deep", at: position) }
    }

    mutating func parseOr() throws(QueryError) -> QueryPredicate {
        try enter(); defer { depth -= 1 }
        var result = try parseAnd()
        while consumeKeyword("OR") || consumeSymbol("||") {
            result = .or(result, try parseAnd())
        }
        return result
    }

    mutating func parseAnd() throws(QueryError) -> QueryPredicate {
        var result = try parseNot()
        while consumeKeyword("AND") || consumeSymbol("&&") {
            result = .and(result, try parseNot())
        }
        return result
    }

    mutating func parseNot() throws(QueryError) -> QueryPredicate {
        try enter(); defer { depth -= 1 }
        skipSpace()
        if consumeKeyword("NOT") || (peekByte() == UInt8(ascii: "!") && peekByte(1) != UInt8(ascii: "=") && consumeSymbol("!")) {
            return .not(try parseNot())
        }
        if consumeKeyword("TRUEPREDICATE") { return .constant(true) }
        if consumeKeyword("FALSEPREDICATE") { return .constant(false) }
        if peekByte() == UInt8(ascii: "(") {
            // A parenthesised predicate, or a comparison whose left side starts with "(" (not in this language).
            position += 1
            let inner = try parseOr()
            skipSpace()
            guard consumeSymbol(")") else { throw QueryError("expected ')' to close the '(' here", at: position) }
            return inner
        }
        return .comparison(try parseComparison())
    }

    mutating func parseComparison() throws(QueryError) -> Comparison {
        skipSpace()
        let start = position
        var quantifier: Quantifier?
        if consumeKeyword("ANY") || consumeKeyword("SOME") { quantifier = .any }
        else if consumeKeyword("ALL") { quantifier = .all }
        else if consumeKeyword("NONE") { quantifier = Quantifier.none }
        let lhs = try parseOperand()
        skipSpace()
        let operatorOffset = position
        guard let op = parseOperator() else {
            if position >= bytes.count { throw QueryError("expected a comparison operator (==, <, BEGINSWITH, IN …) after '\(slice(start, position).trimmingCharacters(in: .whitespaces))', found the end of the query", at: position) }
            throw QueryError("expected a comparison operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN, BETWEEN), found \(describeToken())", at: position)
        }
        let options = try parseOptions()
        let rhs = try parseOperand()
        if quantifier != nil, case .keyPath = lhs {} else if quantifier != nil {
            throw QueryError("\(quantifier?.rawValue ?? "ANY") must be followed by a key path", at: start)
        }
        return Comparison(lhs: lhs, op: op, rhs: rhs, options: options, quantifier: quantifier, offset: operatorOffset)
    }

    static let symbolOperators: [(StaticString, ComparisonOperator)] = [
        ("==", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<=", .lessOrEqual), ("=<", .lessOrEqual),
        (">=", .greaterOrEqual), ("=>", .greaterOrEqual), ("<", .less), (">", .greater), ("=", .equal),
    ]
    static let wordOperators: [(StaticString, ComparisonOperator)] = [
        ("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith), ("CONTAINS", .contains),
        ("LIKE", .like), ("IN", .in), ("BETWEEN", .between),
    ]

    mutating func parseOperator() -> ComparisonOperator? {
        skipSpace()
        for (symbol, op) in Self.symbolOperators where consumeSymbol(symbol) { return op }
        for (word, op) in Self.wordOperators where consumeKeyword(word) { return op }
        return nil
    }

    mutating func parseOptions() throws(QueryError) -> ComparisonOptions {
        skipSpace()
        guard peekByte() == UInt8(ascii: "[") else { return [] }
        let start = position
        position += 1
        var options: ComparisonOptions = []
        while let byte = peekByte(), byte != UInt8(ascii: "]") {
            switch byte | 0x20 {
            case UInt8(ascii: "c"): options.insert(.caseInsensitive)
            case UInt8(ascii: "d"): options.insert(.diacriticInsensitive)
            default: throw QueryError("unknown comparison modifier '\(Character(UnicodeScalar(byte)))' (use [c], [d] or [cd])", at: position)
            }
            position += 1
        }
        guard consumeSymbol("]") else { throw QueryError("expected ']' to close the modifier", at: start) }
        guard !options.isEmpty else { throw QueryError("an empty modifier []", at: start) }
        return options
    }

    // MARK: Operands

    mutating func parseOperand() throws(QueryError) -> QueryOperand {
        try enter(); defer { depth -= 1 }
        skipSpace()
        let start = position
        guard let byte = peekByte() else { throw QueryError("expected a key path, a value or an argument, found the end of the query", at: position) }
        switch byte {
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            return .value(.string(try parseString()), offset: start)
        case UInt8(ascii: "{"):
            position += 1
            var items: [QueryOperand] = []
            skipSpace()
            if consumeSymbol("}") { return .list([], offset: start) }
            repeat {
                items.append(try parseOperand())
                skipSpace()
            } while consumeSymbol(",")
            guard consumeSymbol("}") else { throw QueryError("expected ',' or '}' in the list, found \(describeToken())", at: position) }
            return .list(items, offset: start)
        case UInt8(ascii: "%"):
            return try parseArgument()
        case UInt8(ascii: "$"):
            if let next = peekByte(1), isDigit(next) {
                position += 1
                let digits = readWhile(isDigit)
                guard let index = Int(digits), index < arguments.count else {
                    throw QueryError("argument $\(digits) does not exist (\(arguments.count) given)", at: start)
                }
                highestPositional = max(highestPositional, index)
                return try operand(fromArgument: arguments[index], at: start)
            }
            return .keyPath(try parseKeyPath())
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if byte == UInt8(ascii: ".") && !(peekByte(1).map(isDigit) ?? false) { break }
            return .value(try parseNumber(), offset: start)
        default:
            break
        }
        if isIdentifierStart(byte) || byte == UInt8(ascii: "@") {
            // Keyword literals and functions before key paths.
            let word = peekWord().uppercased()
            switch word {
            case "TRUE", "YES": _ = readWord(); return .value(.bool(true), offset: start)
            case "FALSE", "NO": _ = readWord(); return .value(.bool(false), offset: start)
            case "NIL", "NULL": _ = readWord(); return .value(.null, offset: start)
            case "SUBQUERY" where nextNonSpace(after: position + word.utf8.count) == UInt8(ascii: "("):
                return try parseSubquery()
            case "OID" where nextNonSpace(after: position + 3) == UInt8(ascii: "("):
                _ = readWord()
                let inner = try parseParenthesisedText()
                guard let id = try? ObjectId(string: inner) else { throw QueryError("oid(…) needs 24 hexadecimal digits", at: start) }
                return .value(.objectId(id), offset: start)
            case "UUID" where nextNonSpace(after: position + 4) == UInt8(ascii: "("):
                _ = readWord()
                let inner = try parseParenthesisedText()
                guard let uuid = UUID(uuidString: inner) else { throw QueryError("uuid(…) needs a UUID such as 6C7D1E5A-0F1B-4C8E-9A2B-3D4E5F607182", at: start) }
                return .value(.uuid(uuid), offset: start)
            case "B64" where peekByte(3) == UInt8(ascii: "\""):
                position += 3
                let encoded = try parseString()
                guard let data = Data(base64Encoded: encoded) else { throw QueryError("B64\"…\" is not valid base64", at: start) }
                return .value(.data(data), offset: start)
            default:
                if word.hasPrefix("T"), word.count > 1, let timestamp = try parseTimestampIfPresent() {
                    return .value(.date(timestamp), offset: start)
                }
            }
            return .keyPath(try parseKeyPath())
        }
        throw QueryError("expected a key path, a value or an argument, found \(describeToken())", at: position)
    }

    /// `T<seconds>:<nanoseconds>` (Realm's timestamp literal), seconds since 1970.
    mutating func parseTimestampIfPresent() throws(QueryError) -> Date? {
        let start = position
        guard peekByte() == UInt8(ascii: "T") || peekByte() == UInt8(ascii: "t") else { return nil }
        var probe = position + 1
        var seen = false
        if probe < bytes.count, bytes[probe] == UInt8(ascii: "-") { probe += 1 }
        while probe < bytes.count, isDigit(bytes[probe]) { probe += 1; seen = true }
        guard seen, probe < bytes.count, bytes[probe] == UInt8(ascii: ":") else { return nil }
        position += 1
        let secondsText = readWhile { isDigit($0) || $0 == UInt8(ascii: "-") }
        position += 1
        let nanosText = readWhile { isDigit($0) || $0 == UInt8(ascii: "-") }
        guard let seconds = Int64(secondsText), let nanos = Int64(nanosText) else { throw QueryError("a timestamp is T<seconds>:<nanoseconds>", at: start) }
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanos) / 1e9)
    }

    mutating func parseParenthesisedText() throws(QueryError) -> String {
        skipSpace()
        guard consumeSymbol("(") else { throw QueryError("expected '('", at: position) }
        let start = position
        while let byte = peekByte(), byte != UInt8(ascii: ")") { position += 1 }
        guard peekByte() == UInt8(ascii: ")") else { throw QueryError("expected ')'", at: start) }
        let inner = slice(start, position).trimmingCharacters(in: .whitespaces)
        position += 1
        return inner.trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
    }

    mutating func parseSubquery() throws(QueryError) -> QueryOperand {
        let start = position
        _ = readWord()
        skipSpace()
        guard consumeSymbol("(") else { throw QueryError("expected '(' after SUBQUERY", at: position) }
        skipSpace()
        let collection = try parseKeyPath()
        skipSpace()
        guard consumeSymbol(",") else { throw QueryError("expected ',' after the SUBQUERY collection", at: position) }
        skipSpace()
        guard consumeSymbol("$"), let first = peekByte(), isIdentifierStart(first) else {
            throw QueryError("expected a variable such as $x as the second SUBQUERY argument", at: position)
        }
        let variable = readWord()
        skipSpace()
        guard consumeSymbol(",") else { throw QueryError("expected ',' after the SUBQUERY variable", at: position) }
        let predicate = try parseOr()
        skipSpace()
        guard consumeSymbol(")") else { throw QueryError("expected ')' to close SUBQUERY", at: position) }
        guard consumeSymbol("."), consumeKeyword("@count") || consumeKeyword("@size") else {
            throw QueryError("a SUBQUERY must be followed by .@count", at: position)
        }
        return .subqueryCount(collection: collection, variable: variable, predicate: predicate, offset: start)
    }

    mutating func parseKeyPath() throws(QueryError) -> QueryKeyPath {
        skipSpace()
        let start = position
        var path = QueryKeyPath(variable: nil, steps: [], offset: start)
        if consumeSymbol("$") {
            guard let byte = peekByte(), isIdentifierStart(byte) else { throw QueryError("expected a variable name after '$'", at: position) }
            path.variable = readWord()
            guard peekByte() == UInt8(ascii: ".") else { return path }
            position += 1
        }
        while true {
            guard let byte = peekByte() else { throw QueryError("expected a property name, found the end of the query", at: position) }
            let stepStart = position
            if byte == UInt8(ascii: "@") {
                position += 1
                let word = readWord()
                switch word.lowercased() {
                case "count", "size": path.steps.append(.count)
                case "min": path.steps.append(.min)
                case "max": path.steps.append(.max)
                case "sum": path.steps.append(.sum)
                case "avg": path.steps.append(.avg)
                case "allkeys": path.steps.append(.allKeys)
                case "allvalues": path.steps.append(.allValues)
                case "type": path.steps.append(.type)
                default: throw QueryError("unknown operator '@\(word)' (use @count, @size, @min, @max, @sum, @avg, @allKeys, @allValues or @type)", at: stepStart)
                }
            } else if isIdentifierStart(byte) {
                path.steps.append(.property(readWord()))
            } else if byte == UInt8(ascii: "%") && peekByte(1) == UInt8(ascii: "K") {
                position += 2
                path.steps += try keyPathArgument(at: stepStart)
            } else {
                throw QueryError("expected a property name, found \(describeToken())", at: position)
            }
            while peekByte() == UInt8(ascii: "[") {
                position += 1
                skipSpace()
                path.steps.append(try parseSubscript())
                skipSpace()
                guard consumeSymbol("]") else { throw QueryError("expected ']' to close the subscript", at: position) }
            }
            guard peekByte() == UInt8(ascii: "."), let next = peekByte(1), isIdentifierStart(next) || next == UInt8(ascii: "@") || next == UInt8(ascii: "%") else { break }
            position += 1
        }
        return path
    }

    /// What is inside `[…]`: a map or dictionary key (`'key'`, a String
    /// argument), a list index into a mixed value (`0`, `FIRST`, `LAST`, an Int
    /// argument), every element (`*`, or a `%K` argument "#any"), or `SIZE`.
    mutating func parseSubscript() throws(QueryError) -> KeyPathStep {
        let start = position
        guard let byte = peekByte() else { throw QueryError("expected a subscript, found the end of the query", at: position) }
        if byte == UInt8(ascii: "*") {
            position += 1
            return .everyElement
        }
        if byte == UInt8(ascii: "%") && peekByte(1) == UInt8(ascii: "K") {
            position += 2
            guard nextArgument < arguments.count, let name = arguments[nextArgument] as? String else {
                throw QueryError("the argument for %K in a subscript must be a String", at: start)
            }
            nextArgument += 1
            return name == "#any" ? .everyElement : .mapKey(name)
        }
        if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "$") {
            switch try parseOperand() {
            case .value(.string(let key), _): return .mapKey(key)
            case .value(.int(let index), _) where index >= 0: return .index(Int(index))
            default: throw QueryError("a subscript argument must be a String (a key) or a non-negative Int (an index)", at: start)
            }
        }
        if isDigit(byte) {
            guard case .int(let index) = try parseNumber(), index >= 0, index <= Int64(Int32.max) else {
                throw QueryError("a subscript index must be a non-negative integer", at: start)
            }
            return .index(Int(index))
        }
        if isIdentifierStart(byte) {
            switch readWord().uppercased() {
            case "FIRST": return .index(0)
            case "LAST": return .index(-1)
            case "SIZE": return .count
            default: throw QueryError("expected a key, an index, *, FIRST, LAST or SIZE in the subscript", at: start)
            }
        }
        return .mapKey(try parseString())
    }

    /// A `%K` argument: a key path given as a string, possibly dotted.
    mutating func keyPathArgument(at offset: Int) throws(QueryError) -> [KeyPathStep] {
        guard nextArgument < arguments.count else { throw QueryError("the query needs more arguments than the \(arguments.count) given", at: offset) }
        defer { nextArgument += 1 }
        guard let name = arguments[nextArgument] as? String, !name.isEmpty else {
            throw QueryError("the argument for %K must be a property name (a String)", at: offset)
        }
        return name.split(separator: ".", omittingEmptySubsequences: false).map { part in
            switch part.lowercased() {
            case "@count", "@size": .count
            case "@min": .min
            case "@max": .max
            case "@sum": .sum
            case "@avg": .avg
            case "@allkeys": .allKeys
            case "@allvalues": .allValues
            case "@type": .type
            default: .argumentProperty(String(part))
            }
        }
    }

    mutating func parseArgument() throws(QueryError) -> QueryOperand {
        let start = position
        position += 1
        let specifier = readWhile { isIdentifierCharacter($0) || $0 == UInt8(ascii: "@") }
        switch specifier {
        case "K":
            position = start
            return .keyPath(try parseKeyPath())
        case "@", "d", "i", "ld", "lld", "lu", "llu", "u", "f", "lf", "g", "s", "S":
            guard nextArgument < arguments.count else { throw QueryError("the query needs more arguments than the \(arguments.count) given", at: start) }
            defer { nextArgument += 1 }
            return try operand(fromArgument: arguments[nextArgument], at: start)
        default:
            throw QueryError("unknown argument placeholder '%\(specifier)' (use %@, %K, %d or %f)", at: start)
        }
    }

    func operand(fromArgument argument: Any?, at offset: Int) throws(QueryError) -> QueryOperand {
        if let array = argument as? [Any?], !(argument is Data) {
            var items: [QueryOperand] = []
            for element in array { items.append(try operand(fromArgument: element, at: offset)) }
            return .list(items, offset: offset)
        }
        if let collection = argument as? any QueryableCollection {
            // Results, List, MutableSet or LinkingObjects of objects: `pets IN %@`.
            var items: [QueryOperand] = []
            for element in collection.queryElements { items.append(.value(.object(QueryValue.ObjectReference(object: element)), offset: offset)) }
            return .list(items, offset: offset)
        }
        if let set = argument as? Set<AnyHashable> {
            var items: [QueryOperand] = []
            for element in set { items.append(try operand(fromArgument: element.base, at: offset)) }
            return .list(items, offset: offset)
        }
        guard let value = QueryValue.from(argument: argument) else {
            throw QueryError("an argument of type \(type(of: argument as Any)) cannot be used in a query", at: offset)
        }
        return .value(value, offset: offset)
    }

}
