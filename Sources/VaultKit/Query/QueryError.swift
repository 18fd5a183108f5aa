/// Why a query cannot run: a malformed query string, an unknown property, a
/// type mismatch, an operator that does not apply, a wrong argument count.
///
/// The message names the problem and, for string queries, its position:
///
/// ```
/// Query error at offset 4 in "age == 'x'": Person.age is an int; 'x' is a string
/// ```
///
/// Messages quote the query text and the property names, never argument values
/// (arguments may be secrets; the text is the app's own code).
public struct QueryError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words.
    public let reason: String
    /// The UTF-8 offset in the query string where the problem is, when known.
    public let offset: Int?
    /// The query string, when the query came from one.
    public let query: String?

    init(_ reason: String, at offset: Int? = nil, in query: String? = nil) {
        self.reason = reason
        self.offset = offset
        self.query = query
    }

    /// The same error, located in `query` (kept if already located).
    func located(in query: String) -> QueryError {
        QueryError(reason, at: offset, in: self.query ?? query)
    }

    public var description: String {
        var text = "Query error"
        if let offset { text += " at offset \(offset)" }
        if let query { text += " in \"\(query)\"" }
        return text + ": " + reason
    }
}
