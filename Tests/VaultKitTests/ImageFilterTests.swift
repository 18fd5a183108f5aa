import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit
import VaultCore

// A table image answers a filter by evaluating it on decoded values
// (ImageFilter); SQLite answers it by running the compiled SQL. The two must
// agree on every row: random filters over random rows, with NULLs, NaNs,
// integers past 2^53, reals past Int64, infinities, empty and non-ASCII
// text (composed and decomposed), text with NUL, and blobs.

@Suite("Table-image filters agree with SQLite")
struct ImageFilterTests {
    typealias Generator = SplitMix64

    /// Values each column may hold or be compared with (nil: the optional's nil).
    static let ints: [Int?] = [nil, 0, 1, -1, 30, 39, 40, Int.max, Int.min, 9_007_199_254_740_993, -9_007_199_254_740_993]
    static let doubles: [Double?] = [nil, 0, -0.0, 0.5, 30, 39.5, 1e300, -1e300, .infinity, -.infinity, .nan,
                                     9_007_199_254_740_992, 9.223372036854776e18, -9.223372036854776e18, 1e19]
    static let floats: [Float?] = [nil, 0, 0.1, -1.5, .nan, .infinity, 3e38]
    static let strings: [String?] = [nil, "", "a", "A", "b", "ab", "\u{e9}", "e\u{301}", "zz", "日本", "a\u{0}b", "Name 42", "🙂"]
    static let dates: [Date?] = [nil, Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1.5),
                                 Date(timeIntervalSinceReferenceDate: 1e9), .distantFuture, .distantPast]
    static let datas: [Data?] = [nil, Data(), Data([0]), Data([1, 2]), Data([1, 2, 3]), Data([255])]
    static let uuids: [UUID?] = [nil, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)), UUID(uuid: (255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))]
    static let bools: [Bool?] = [nil, false, true]

    /// A column, the values it may be compared with, and whether ordering applies.
    struct Column {
        let name: String
        let values: [Any?]
        let ordered: Bool
    }

    static var columns: [Column] { [
        Column(name: "int", values: ints + [2.5, -0.5, 1e19] as [Any?], ordered: true),
        Column(name: "int64", values: ints.map { value -> Any? in value.map { Int64($0) } }, ordered: true),
        Column(name: "optInt", values: ints + [39.5] as [Any?], ordered: true),
        Column(name: "double", values: doubles + [3, Int.max] as [Any?], ordered: true),
        Column(name: "optDouble", values: doubles, ordered: true),
        Column(name: "float", values: floats + [0.1] as [Any?], ordered: true),
        Column(name: "optFloat", values: floats, ordered: true),
        Column(name: "string", values: strings, ordered: true),
        Column(name: "optString", values: strings, ordered: true),
        Column(name: "bool", values: bools, ordered: false),
        Column(name: "optBool", values: bools, ordered: false),
        Column(name: "date", values: dates, ordered: true),
        Column(name: "optDate", values: dates, ordered: true),
        Column(name: "data", values: datas, ordered: true),
        Column(name: "optData", values: datas, ordered: true),
        Column(name: "optUUID", values: uuids, ordered: true),
        Column(name: "status", values: [Status.active, Status.archived, "active", nil], ordered: true),
        Column(name: "optPriority", values: [Priority.low, Priority.high, 2, nil], ordered: true),
    ] }

    static func pick<T>(_ values: [T], _ generator: inout Generator) -> T {
        values[Int(generator.next() % UInt64(values.count))]
    }

    static func row(_ generator: inout Generator) -> AllTypes {
        let object = AllTypes()
        object._id = ObjectId.generate()
        object.int = pick(ints, &generator) ?? 7
        object.int64 = Int64(pick(ints, &generator) ?? 0)
        object.optInt = pick(ints, &generator)
        object.double = pick(doubles, &generator) ?? 2
        object.optDouble = pick(doubles, &generator)
        object.float = pick(floats, &generator) ?? 1
        object.optFloat = pick(floats, &generator)
        object.string = pick(strings, &generator) ?? "x"
        object.optString = pick(strings, &generator)
        object.bool = pick(bools, &generator) ?? true
        object.optBool = pick(bools, &generator)
        object.date = pick(dates, &generator) ?? Date(timeIntervalSinceReferenceDate: 5)
        object.optDate = pick(dates, &generator)
        object.data = pick(datas, &generator) ?? Data([9])
        object.optData = pick(datas, &generator)
        object.optUUID = pick(uuids, &generator)
        object.status = generator.next() % 2 == 0 ? .active : .archived
        object.optPriority = [nil, Priority.low, .high][Int(generator.next() % 3)]
        return object
    }

    /// A random filter: comparisons joined by AND, OR and NOT, with its arguments.
    static func filter(_ generator: inout Generator, depth: Int = 0) -> (String, [Any?]) {
        let shape = depth >= 2 ? 0 : generator.next() % 5
        switch shape {
        case 1, 2:
            let (a, x) = filter(&generator, depth: depth + 1)
            let (b, y) = filter(&generator, depth: depth + 1)
            return ("(\(a)) \(shape == 1 ? "AND" : "OR") (\(b))", x + y)
        case 3:
            let (a, x) = filter(&generator, depth: depth + 1)
            return ("NOT (\(a))", x)
        case 4:
            // Two comparisons of one column AND-ed (a range: `age >= 30 AND age < 40`).
            let column = pick(Self.columns.filter(\.ordered), &generator)
            let operators = ["==", "!=", "<", "<=", ">", ">="]
            return ("\(column.name) \(pick(operators, &generator)) %@ AND \(column.name) \(pick(operators, &generator)) %@",
                    [pick(column.values, &generator), pick(column.values, &generator)])
        default:
            let column = pick(Self.columns, &generator)
            let operators = column.ordered ? ["==", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN", "flipped"] : ["==", "!=", "IN"]
            let op = pick(operators, &generator)
            let value = pick(column.values, &generator)
            switch op {
            case "BETWEEN":
                return ("\(column.name) BETWEEN {%@, %@}", [value, pick(column.values, &generator)])
            case "IN":
                return ("\(column.name) IN %@", [[value, pick(column.values, &generator), pick(column.values, &generator)]])
            case "flipped":
                return ("%@ \(pick(["<", ">=", "==", "!="], &generator)) \(column.name)", [value])
            default:
                return ("\(column.name) \(op) %@", [value])
            }
        }
    }

    @Test("random filters over random rows: the image's matches are SQLite's", arguments: StorageMode.writable)
    func agreesWithSQLite(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("image-filter")
        let vault = try Vault(configuration: mode.configuration(directory, types: [AllTypes.self]))
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = Generator(seed: seed)
        try vault.write { for _ in 0..<300 { vault.add(Self.row(&generator)) } }
        let all = vault.objects(AllTypes.self)
        let image = try #require(vault.readTableImage(all.schema))
        #expect(image.count == 300)
        var compared = 0, refused = 0
        for _ in 0..<1_500 {
            let (query, arguments) = Self.filter(&generator)
            let results: Results<AllTypes>
            do {
                results = try all.filter(query, arguments: arguments)
            } catch {
                refused += 1   // a mismatched type the compiler refuses: nothing to compare
                continue
            }
            let fromSQLite = results.reader.rowIDs(results.compiled.idQuery)
            let filter = try #require(ImageFilter(results.definition.predicates, schema: results.schema), "\(query) (seed \(seed))")
            let fromImage = filter.matchingRows(in: image).map { image.rowIDs[$0] }
            #expect(fromImage == fromSQLite, "\(query) with \(arguments) (seed \(seed))")
            compared += 1
        }
        #expect(compared > 1_000, "only \(compared) filters compiled (\(refused) refused)")
    }

    @Test("what the image cannot answer is left to SQLite")
    func unsupportedShapes() throws {
        let directory = try TemporaryDirectory("image-filter-refusals")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [AllTypes.self]))
        let all = vault.objects(AllTypes.self)
        for query in ["string BEGINSWITH 'a'", "string ==[c] 'a'", "decimal > 1", "string CONTAINS 'x'", "int == int64", "string LIKE 'a*'"] {
            let results = all.filter(query)
            #expect(ImageFilter(results.definition.predicates, schema: results.schema) == nil, "\(query)")
        }
        for query in ["int > 3 AND NOT (optString == nil)", "optUUID IN {nil}", "TRUEPREDICATE", "3 < int"] {
            let results = all.filter(query)
            #expect(ImageFilter(results.definition.predicates, schema: results.schema) != nil, "\(query)")
        }
    }

    @Test("integers against reals compare exactly, as SQLite's do")
    func integerRealOrder() {
        #expect(ImageFilter.compare(integer: 9_007_199_254_740_993, real: 9_007_199_254_740_992) == 1)
        #expect(ImageFilter.compare(integer: Int64.max, real: 9.223372036854776e18) == -1)
        #expect(ImageFilter.compare(integer: Int64.min, real: -9.223372036854776e18) == 0)
        #expect(ImageFilter.compare(integer: 3, real: 3.5) == -1)
        #expect(ImageFilter.compare(integer: -3, real: -3.5) == 1)
        #expect(ImageFilter.compare(integer: 0, real: -0.0) == 0)
        #expect(ImageFilter.compare(integer: 5, real: .infinity) == -1)
        #expect(ImageFilter.order(.text("\u{e9}"), .text("e\u{301}")) == 1)   // bytes, not canonical equivalence
        #expect(ImageFilter.order(.text("NaN"), .real(1e300)) == 1)          // text after every number
    }
}

@Suite("Table-image columns")
struct ImageColumnTests {
    @Test("a column keeps every value as SQLite gave it, typed until a second storage class arrives")
    func roundTrip() {
        let sequences: [[DatabaseValue]] = [
            [.null, .null, .integer(3), .null, .integer(Int64.min)],
            [.real(1.5), .null, .real(-0.0), .text("NaN"), .real(2)],
            [.text(""), .text("é"), .null, .text("a\u{0}b"), .text(String(repeating: "x", count: 40))],
            [.null, .null],
            [.blob(Data([1, 2])), .integer(4), .null, .text("t")],
            [.integer(1), .text("1"), .real(1)],
        ]
        for values in sequences {
            var column = ImageColumn()
            for value in values { column.append(value) }
            #expect(column.count == values.count)
            #expect((0..<values.count).map { column.value(at: $0) } == values)
            #expect((0..<values.count).map { column.isNull(at: $0) } == values.map(\.isNull))
        }
    }

    @Test("a text column's bytes grow in place past many reallocations, and a copy appends to bytes of its own")
    func textBytesGrowthAndCopies() {
        // Lengths from 0 to 300 bytes, ASCII and multi-byte, NULs inside: far past the first allocation.
        let texts: [String] = (0..<5_000).map { row in
            switch row % 5 {
            case 0: ""
            case 1: String(repeating: "é", count: row % 150)
            case 2: "row \(row)\u{0}tail"
            case 3: String(repeating: "🦊", count: row % 75)
            default: String(repeating: "x", count: row % 300)
            }
        }
        var column = ImageColumn()
        column.reserveText(rows: 10)   // nothing read yet: reserves nothing
        for (row, text) in texts.enumerated() {
            column.append(.text(text))
            if row == 7 { column.reserveText(rows: texts.count) }   // as the builder does after the first rows
        }
        #expect((0..<texts.count).allSatisfy { column.value(at: $0) == .text(texts[$0]) })
        #expect((0..<texts.count).allSatisfy { column.order(at: $0, .text(texts[$0])) == 0 })

        // Columns are values: a copy made while building appends to its own bytes, before and after a NULL.
        var first = ImageColumn()
        first.append(.text("shared"))
        var second = first
        second.append(.text("second's"))
        first.append(.text("first's, longer than the other"))
        second.append(.null)
        var third = second
        third.append(.text("third's"))
        second.append(.text("second's again"))
        #expect((0..<2).map { first.value(at: $0) } == [.text("shared"), .text("first's, longer than the other")])
        #expect((0..<4).map { second.value(at: $0) } == [.text("shared"), .text("second's"), .null, .text("second's again")])
        #expect((0..<4).map { third.value(at: $0) } == [.text("shared"), .text("second's"), .null, .text("third's")])

        // A reader made from a finished column reads the same text, and keeps it after the column is gone.
        let reader = UnsafeMutablePointer<ImageColumnReader>.allocate(capacity: 1)
        reader.initialize(to: ImageColumnReader(column))
        column = ImageColumn()
        #expect((0..<texts.count).map { ImageColumnReader.text(in: reader, at: $0) } == texts.map { Optional($0) })
        reader.deinitialize(count: 1)
        reader.deallocate()
    }

    static let integerEdges: [Int64] = [.min, .min + 1, -2, -1, 0, 1, 2, 39, 40, .max - 1, .max]
    static let realEdges: [Double] = [-.infinity, -.greatestFiniteMagnitude, -1.5, -.leastNonzeroMagnitude, -0.0, 0.0,
                                      .leastNonzeroMagnitude, 1.5, 39.999_999_999_999_99, 40, .greatestFiniteMagnitude, .infinity]

    /// Swift's comparison of two non-NaN numbers of one kind, which is SQLite's.
    static func expected<T: Comparable>(_ value: T, _ op: ImageFilter.Operator, _ bound: T) -> ImageFilter.Truth {
        let holds = switch op {
        case .equal: value == bound
        case .notEqual: value != bound
        case .less: value < bound
        case .lessOrEqual: value <= bound
        case .greater: value > bound
        case .greaterOrEqual: value >= bound
        }
        return holds ? .true : .false
    }

    @Test("a column of numbers is compared in one loop, as Swift compares each value, at every edge")
    func numberLoops() {
        let operators: [ImageFilter.Operator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
        var integers = ImageColumn(), reals = ImageColumn()
        for value in Self.integerEdges { integers.append(.integer(value)) }
        for value in Self.realEdges { reals.append(.real(value)) }
        for op in operators {
            for bound in Self.integerEdges {
                #expect(integers.truths(op, .integer(bound), count: integers.count) == Self.integerEdges.map { Self.expected($0, op, bound) },
                        "\(op) \(bound)")
                // AND-ed into truths already there: a false stays false, an unknown stays unknown where the comparison holds.
                let before: [ImageFilter.Truth] = Self.integerEdges.indices.map { [.true, .false, .unknown][$0 % 3] }
                var refined = before
                #expect(integers.refine(&refined, op, .integer(bound)))
                #expect(refined == zip(before, Self.integerEdges).map { Self.expected($1, op, bound) == .true ? $0 : .false }, "\(op) \(bound)")
            }
            for bound in Self.realEdges {
                #expect(reals.truths(op, .real(bound), count: reals.count) == Self.realEdges.map { Self.expected($0, op, bound) },
                        "\(op) \(bound)")
            }
        }
        // A NULL anywhere, a NULL or NaN bound, or a bound of the other kind: no loop (the row-by-row comparison answers).
        var withNull = integers
        withNull.append(.null)
        var unchanged: [ImageFilter.Truth] = Array(repeating: .true, count: withNull.count)
        #expect(!withNull.refine(&unchanged, .less, .integer(3)))
        var truths: [ImageFilter.Truth] = Array(repeating: .true, count: integers.count)
        #expect(!integers.refine(&truths, .less, .real(3.5)))
        #expect(truths == Array(repeating: .true, count: integers.count))
        var realTruths: [ImageFilter.Truth] = Array(repeating: .true, count: reals.count)
        #expect(!reals.refine(&realTruths, .less, .real(.nan)))
        #expect(!reals.refine(&realTruths, .less, .integer(3)))
        #expect(realTruths == Array(repeating: .true, count: reals.count))
    }

    @Test("two ranges of one column of numbers, AND-ed, are one loop over their intersection, at every edge")
    func rangeIntersections() {
        let operators: [ImageFilter.Operator] = [.equal, .less, .lessOrEqual, .greater, .greaterOrEqual]
        var integers = ImageColumn(), reals = ImageColumn()
        for value in Self.integerEdges { integers.append(.integer(value)) }
        for value in Self.realEdges { reals.append(.real(value)) }
        func both(_ a: ImageFilter.Truth, _ b: ImageFilter.Truth) -> ImageFilter.Truth { a == .true && b == .true ? .true : .false }
        for op in operators {
            for otherOp in operators {
                for bound in Self.integerEdges {
                    for otherBound in [Int64.min, -1, 0, 39, 40, .max] {
                        let merged = integers.truths(op, .integer(bound), and: otherOp, .integer(otherBound), count: integers.count)
                        let expected = Self.integerEdges.map { both(Self.expected($0, op, bound), Self.expected($0, otherOp, otherBound)) }
                        #expect(merged == expected, "\(op) \(bound) AND \(otherOp) \(otherBound)")
                    }
                }
                for bound in Self.realEdges {
                    for otherBound in [-Double.infinity, -0.0, 0.0, 1.5, .infinity] {
                        let merged = reals.truths(op, .real(bound), and: otherOp, .real(otherBound), count: reals.count)
                        let expected = Self.realEdges.map { both(Self.expected($0, op, bound), Self.expected($0, otherOp, otherBound)) }
                        #expect(merged == expected, "\(op) \(bound) AND \(otherOp) \(otherBound)")
                    }
                }
            }
        }
        // `!=` is no range, nor is a bound of the other kind or a column with a NULL: each comparison goes its own way.
        #expect(integers.truths(.notEqual, .integer(3), and: .less, .integer(9), count: integers.count) == nil)
        #expect(integers.truths(.greater, .integer(3), and: .less, .real(9.5), count: integers.count) == nil)
        var withNull = integers
        withNull.append(.null)
        #expect(withNull.truths(.greater, .integer(3), and: .less, .integer(9), count: withNull.count) == nil)
    }

    @Test("a truth's stored byte is its raw value (the loops write raw values in place)")
    func truthLayout() {
        for truth in [ImageFilter.Truth.false, .true, .unknown] {
            #expect(unsafeBitCast(truth, to: UInt8.self) == truth.rawValue)
        }
    }
}
