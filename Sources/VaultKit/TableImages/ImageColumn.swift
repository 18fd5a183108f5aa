import Foundation
import VaultCore

/// One column of a ``TableImage``, stored by what it holds: integers and reals
/// as 8-byte numbers, text as UTF-8 bytes laid end to end (4 bytes per row
/// mark the ends), NULLs as a flag per row (only once a NULL appears); a
/// column whose values are of more than one storage class (a `Double` column
/// holding a NaN, stored as text) keeps `DatabaseValue`s. Numbers take a third
/// of a `DatabaseValue`'s memory and text little more than its bytes (a
/// `String` of more than 15 bytes is a 16-byte slot and a heap allocation), and
/// the filter's comparisons read numbers and bytes in place.
struct ImageColumn {
    enum Kind {
        /// No value but NULLs yet: the first value decides.
        case undecided
        case integer, real, text
        /// Values of several storage classes (or blobs): kept as they are.
        case values
    }

    private(set) var kind = Kind.undecided
    private(set) var count = 0
    /// `.integer`: the integers; `.real`: the doubles' bit patterns.
    /// (`numbers` of a row-id key's column is the image's row-id array.)
    fileprivate var numbers: [Int64] = []
    /// `.text`: every row's UTF-8 bytes, end to end, and where each row's end
    /// (an image holds at most `TableImageCache.byteLimit` bytes, so 32 bits suffice).
    /// (The bytes are in memory of their own: see ``ImageTextBytes``.)
    fileprivate var textBytes = ImageTextBytes()
    fileprivate var textEnds: [UInt32] = []
    fileprivate var values: [DatabaseValue] = []
    /// Per row, whether it is NULL: empty until the first NULL.
    fileprivate var nulls: [Bool] = []
    /// Whether no row is NULL.
    var hasNoNulls: Bool { nulls.isEmpty }

    /// The bytes the column holds, estimated (values' heap storage included).
    private(set) var byteCount = 0

    /// Adds the next row's value. The usual case — a value of the column's
    /// kind — is one test and one append (this runs for every value of every
    /// row a whole-class loop reads).
    mutating func append(_ value: DatabaseValue) {
        switch value {
        case .null: appendNull()
        case .integer(let number) where kind == .integer: appendNumber(number)
        case .real(let number) where kind == .real: appendNumber(Int64(bitPattern: number.bitPattern))
        case .text(var text) where kind == .text: text.withUTF8 { appendText($0) }
        default: appendOtherKind(value)
        }
    }

    /// Adds the next row's value as a statement lends it: a number or text of
    /// the column's kind is copied in place (no `String` is made for text);
    /// anything else is copied into a `DatabaseValue` first (``append(_:)-DatabaseValue``).
    mutating func append(borrowed value: BorrowedColumnValue) {
        switch value {
        case .null: appendNull()
        case .integer(let number) where kind == .integer: appendNumber(number)
        case .real(let number) where kind == .real: appendNumber(Int64(bitPattern: number.bitPattern))
        case .text(let bytes) where kind == .text: appendText(bytes)
        default: appendOtherKind(DatabaseValue(copying: value))
        }
    }

    /// A NULL: its flag, and a placeholder in the typed storage.
    private mutating func appendNull() {
        if nulls.isEmpty { nulls = Array(repeating: false, count: count) }
        nulls.append(true)
        byteCount += 1
        appendPlaceholder()
        count += 1
    }

    /// A number of the column's kind (`.integer`, or `.real`'s bit pattern).
    @inline(__always)
    private mutating func appendNumber(_ bits: Int64) {
        numbers.append(bits)
        byteCount += 8
        finishValue()
    }

    /// Text of a `.text` column, its UTF-8 bytes.
    @inline(__always)
    private mutating func appendText(_ bytes: UnsafeBufferPointer<UInt8>) {
        makeTextBytesUnique()
        textBytes.append(bytes)
        textEnds.append(UInt32(truncatingIfNeeded: textBytes.count))
        byteCount = byteCount &+ 4 &+ bytes.count
        finishValue()
    }

    /// A value that is not NULL was added to the typed storage: its NULL flag (once there are flags) and the count.
    @inline(__always)
    private mutating func finishValue() {
        if !nulls.isEmpty {
            nulls.append(false)
            byteCount += 1
        }
        count += 1
    }

    /// Adds slot `property` of each storage in `storages` (the rows of a batch of
    /// objects, in order); false, as soon as the column's bytes pass `limit`.
    /// A value of the column's kind is appended in place here (one test of the
    /// kind and one of the value's case); anything else goes through ``append(_:)``.
    mutating func append(_ storages: UnsafeBufferPointer<UnsafeMutablePointer<DatabaseValue>>, property: Int, limit: Int) -> Bool {
        for storage in storages {
            let slot = storage + property
            switch slot.pointee {
            case .integer(let number) where kind == .integer && nulls.isEmpty:
                numbers.append(number)
                byteCount &+= 8
                count &+= 1
            case .real(let number) where kind == .real && nulls.isEmpty:
                numbers.append(Int64(bitPattern: number.bitPattern))
                byteCount &+= 8
                count &+= 1
            case .text(let text) where kind == .text && nulls.isEmpty:
                makeTextBytesUnique()
                let before = textBytes.count
                if text.utf8.withContiguousStorageIfAvailable({ textBytes.append($0) }) == nil {
                    textBytes.append(contentsOf: text.utf8)
                }
                textEnds.append(UInt32(truncatingIfNeeded: textBytes.count))
                byteCount = byteCount &+ 4 &+ (textBytes.count - before)
                count &+= 1
            default:
                append(slot.pointee)
            }
            if byteCount > limit { return false }
        }
        return true
    }

    /// The first value of an undecided column, or a value of another kind than the column's.
    private mutating func appendOtherKind(_ value: DatabaseValue) {
        if kind == .undecided {
            switch value {
            case .integer: kind = .integer
            case .real: kind = .real
            case .text: kind = .text
            default: kind = .values
            }
            fillPlaceholders()
            if kind != .values {
                append(value)
                return
            }
        } else if kind != .values {
            convertToValues()
        }
        values.append(value)
        byteCount += TableImageBuilder.estimatedBytes(of: value)
        if !nulls.isEmpty {
            nulls.append(false)
            byteCount += 1
        }
        count += 1
    }

    /// A NULL's slot in the typed storage (its flag says it is NULL).
    private mutating func appendPlaceholder() {
        switch kind {
        case .undecided: break
        case .integer, .real: numbers.append(0)
        case .text: textEnds.append(UInt32(truncatingIfNeeded: textBytes.count))
        case .values: values.append(.null)
        }
    }

    /// The slots of the NULLs read before the first value decided the kind.
    private mutating func fillPlaceholders() {
        for _ in 0..<count { appendPlaceholder() }
    }

    /// Keeps every value as a `DatabaseValue` from here on.
    private mutating func convertToValues() {
        let existing = (0..<count).map { value(at: $0) }
        kind = .values
        numbers = []
        textBytes = ImageTextBytes()
        textEnds = []
        values = existing
        byteCount = nulls.isEmpty ? 0 : nulls.count
        for value in existing { byteCount += TableImageBuilder.estimatedBytes(of: value) }
    }

    /// A column of integers with no NULL: a row-id key's, which are the row ids
    /// themselves (the image's row-id array, shared, not copied).
    init(integers: [Int64]) {
        kind = .integer
        numbers = integers
        count = integers.count
    }

    init() {}

    /// Gives this column bytes of its own before it appends, should a copy of
    /// it share them (``ImageTextBytes`` is a reference; a column is a value).
    @inline(__always)
    private mutating func makeTextBytesUnique() {
        if !isKnownUniquelyReferenced(&textBytes) { textBytes = textBytes.copy() }
    }

    /// Makes room for the text of `rows` rows in all, at the mean length of the
    /// rows read so far and a tenth more (called once, after the first rows).
    mutating func reserveText(rows: Int) {
        guard kind == .text, count > 0, rows > count else { return }
        makeTextBytesUnique()
        textBytes.reserve(textBytes.count / count * rows * 11 / 10)
    }

    /// Makes room for `rows` rows of values of `type` (a property's type: its
    /// values' likely storage class), so that the arrays do not grow by copying.
    mutating func reserve(rows: Int, for type: PropertyType) {
        switch type {
        case .bool, .int, .object, .float, .double, .date: numbers.reserveCapacity(rows)
        case .string: textEnds.reserveCapacity(rows)
        default: break
        }
    }

    @inline(__always)
    func isNull(at row: Int) -> Bool {
        kind == .undecided || (!nulls.isEmpty && nulls[row])
    }

    /// The value of row `row`, as SQLite gave it.
    func value(at row: Int) -> DatabaseValue {
        Self.value(at: row, kind: kind, numbers: numbers, textBytes: textBytes, textEnds: textEnds, values: values, nulls: nulls)
    }

    /// Row `row`'s value in a column's arrays (``value(at:)``, and ``ImageColumnReader``'s reads).
    @inline(__always)
    fileprivate static func value(at row: Int, kind: Kind, numbers: [Int64], textBytes: ImageTextBytes, textEnds: [UInt32],
                                  values: [DatabaseValue], nulls: [Bool]) -> DatabaseValue {
        if kind == .undecided || (!nulls.isEmpty && nulls[row]) { return .null }
        switch kind {
        case .undecided: return .null
        case .integer: return .integer(numbers[row])
        case .real: return .real(Double(bitPattern: UInt64(bitPattern: numbers[row])))
        case .text: return .text(text(at: row, textBytes: textBytes, textEnds: textEnds))
        case .values: return values[row]
        }
    }

    /// Row `row`'s text in a text column's arrays (the row is not NULL).
    @inline(__always)
    fileprivate static func text(at row: Int, textBytes: ImageTextBytes, textEnds: [UInt32]) -> String {
        let start = row == 0 ? 0 : Int(textEnds[row - 1])
        let end = Int(textEnds[row])
        return textBytes.withBytes(from: start, to: end) { String(decoding: $0, as: UTF8.self) }
    }

    /// SQLite's order of row `row`'s value (not NULL) and `bound` (not NULL),
    /// reading numbers and bytes in place where the kinds allow.
    @inline(__always)
    func order(at row: Int, _ bound: DatabaseValue) -> Int {
        switch (kind, bound) {
        case (.integer, .integer(let other)):
            let number = numbers[row]
            return number < other ? -1 : (number == other ? 0 : 1)
        case (.real, .real(let other)):
            let number = Double(bitPattern: UInt64(bitPattern: numbers[row]))
            return number < other ? -1 : (number == other ? 0 : 1)
        case (.integer, .real(let other)):
            return ImageFilter.compare(integer: numbers[row], real: other)
        case (.text, .text(var other)):
            let start = row == 0 ? 0 : Int(textEnds[row - 1])
            let end = Int(textEnds[row])
            return textBytes.withBytes(from: start, to: end) { bytes in
                other.withUTF8 { ImageFilter.compareBytes(UnsafeRawBufferPointer(bytes), UnsafeRawBufferPointer($0)) }
            }
        default:
            return ImageFilter.order(value(at: row), bound)
        }
    }

    /// `IS NULL`'s truth (or `IS NOT NULL`'s) for every row.
    func nullTruths(count: Int, isNull wantNull: Bool) -> [ImageFilter.Truth] {
        if kind == .undecided { return Array(repeating: wantNull ? .true : .false, count: count) }
        if nulls.isEmpty { return Array(repeating: wantNull ? .false : .true, count: count) }
        return nulls.map { $0 == wantNull ? .true : .false }
    }

    /// SQLite's truth of `value op bound` for every row: one loop over the
    /// numbers when the column holds only numbers of the bound's kind, else row by row.
    func truths(_ op: ImageFilter.Operator, _ bound: DatabaseValue, count: Int) -> [ImageFilter.Truth] {
        if let test = NumberRangeTest(column: self, op, bound) {
            return truths(of: test, count: count)
        }
        return (0..<count).map { ImageFilter.compare(self, $0, op, bound) }
    }

    /// SQL's `(value op bound) AND (value otherOp otherBound)` for every row, in
    /// one loop over the numbers when both comparisons are ranges of them (see
    /// ``NumberRangeTest/intersection(_:)``): `age >= 30 AND age < 40`, a
    /// `BETWEEN`. Nil otherwise (each comparison then goes its own way).
    func truths(_ op: ImageFilter.Operator, _ bound: DatabaseValue, and otherOp: ImageFilter.Operator, _ otherBound: DatabaseValue,
                count: Int) -> [ImageFilter.Truth]? {
        guard let first = NumberRangeTest(column: self, op, bound), let second = NumberRangeTest(column: self, otherOp, otherBound),
              let test = first.intersection(second) else { return nil }
        return truths(of: test, count: count)
    }

    /// `test`'s truth for each of the first `count` numbers, in one loop.
    private func truths(of test: NumberRangeTest, count: Int) -> [ImageFilter.Truth] {
        // No capacity: the shared empty array, whose count the initializer would set (a data race).
        guard count > 0 else { return [] }
        return [ImageFilter.Truth](unsafeUninitializedCapacity: count) { truths, initialized in
            truths.withMemoryRebound(to: UInt8.self) { truths in
                numbers.withUnsafeBufferPointer { test.write(truths, from: $0, refining: false) }
            }
            initialized = count
        }
    }

    /// SQL's `truths AND (value op bound)`, in place, when one loop over the
    /// numbers can tell it (see ``NumberRangeTest``); false (nothing changed) otherwise.
    /// The comparison is never unknown there, so a row stays as it was where it
    /// holds and becomes `.false` where it does not.
    func refine(_ truths: inout [ImageFilter.Truth], _ op: ImageFilter.Operator, _ bound: DatabaseValue) -> Bool {
        guard let test = NumberRangeTest(column: self, op, bound), truths.count == count else { return false }
        truths.withUnsafeMutableBufferPointer { truths in
            truths.withMemoryRebound(to: UInt8.self) { truths in
                numbers.withUnsafeBufferPointer { test.write(truths, from: $0, refining: true) }
            }
        }
        return true
    }
}

/// One image column for reads by row (the values of objects made from the
/// image): the column's arrays, shared with it rather than copied. Readers sit
/// in a plain buffer the image owns, one per property (see
/// ``TableImage/readers``), so that a read reaches the arrays through a pointer
/// and borrows them: through the `ImageColumn` structs inside the image's
/// array, each read would retain and release several arrays (see
/// Benchmarks/README.md, "Objects read from an image"). A property that is not
/// a column has an empty reader (``absent``), never read.
///
/// Besides ``value(at:)``, which gives the value as SQLite gave it, the typed
/// reads give a value of the column's kind without building a `DatabaseValue`
/// (nil for NULL or another kind): an object's getter for an `Int` or a
/// `String` property takes the number or the text this way, and decodes it as
/// it would decode the `DatabaseValue` ``value(at:)`` would have made.
struct ImageColumnReader {
    private let kind: ImageColumn.Kind
    private let numbers: [Int64]
    /// Kept so that ``textBase`` stays valid: the reader holds the bytes it points into.
    private let textBytes: ImageTextBytes
    /// The first text byte (the column is complete: its bytes no longer move).
    private let textBase: UnsafePointer<UInt8>?
    private let textEnds: [UInt32]
    private let values: [DatabaseValue]
    private let nulls: [Bool]

    init(_ column: ImageColumn) {
        kind = column.kind
        numbers = column.numbers
        textBytes = column.textBytes
        textBase = UnsafePointer(column.textBytes.base)
        textEnds = column.textEnds
        values = column.values
        nulls = column.nulls
    }

    private init() {
        kind = .undecided
        numbers = []
        textBytes = ImageTextBytes()
        textBase = nil
        textEnds = []
        values = []
        nulls = []
    }

    /// The reader of a property that is not a column (a collection or a backlink).
    static var absent: ImageColumnReader { ImageColumnReader() }

    /// The value of row `row`, as SQLite gave it.
    @inline(__always)
    func value(at row: Int) -> DatabaseValue {
        ImageColumn.value(at: row, kind: kind, numbers: numbers, textBytes: textBytes, textEnds: textEnds, values: values, nulls: nulls)
    }

    /// Row `row`'s integer, when the column holds integers and the row is not NULL.
    @inline(__always)
    func integer(at row: Int) -> Int64? {
        guard kind == .integer, nulls.isEmpty || !nulls[row] else { return nil }
        return numbers[row]
    }

    /// Row `row`'s real, when the column holds reals and the row is not NULL.
    @inline(__always)
    func real(at row: Int) -> Double? {
        guard kind == .real, nulls.isEmpty || !nulls[row] else { return nil }
        return Double(bitPattern: UInt64(bitPattern: numbers[row]))
    }

    /// Row `row`'s text in the reader `reader` points to, when the column holds
    /// text and the row is not NULL. Through the pointer, field by field: a
    /// method on the struct would copy the whole reader for the decoding call
    /// (a retain and a release of each of its arrays). The bytes are read
    /// through ``textBase``, with no reference counted: the image holds its
    /// readers, and an object reads from an image only while the cache holds it.
    @inline(__always)
    static func text(in reader: UnsafePointer<ImageColumnReader>, at row: Int) -> String? {
        guard reader.pointee.kind == .text, reader.pointee.nulls.isEmpty || !reader.pointee.nulls[row] else { return nil }
        let start = row == 0 ? 0 : Int(reader.pointee.textEnds[row - 1])
        let end = Int(reader.pointee.textEnds[row])
        return String(decoding: UnsafeBufferPointer(start: reader.pointee.textBase.map { $0 + start }, count: end - start), as: UTF8.self)
    }
}
