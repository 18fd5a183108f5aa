import Foundation

/// The SQL of a class's table (see the storage-mapping essay in Vault.swift).
extension ObjectSchema {
    var tableName: String { quoteIdentifier(className) }

    private var columnList: String { properties.map { quoteIdentifier($0.storedName) }.joined(separator: ", ") }

    /// CREATE TABLE and its indexes.
    func creationSQL() -> [String] {
        var columns = ["\"_vk_id\" INTEGER PRIMARY KEY"]
        for property in properties {
            var column = "\(quoteIdentifier(property.storedName)) \(property.type.columnAffinity)"
            if !property.isOptional { column += " NOT NULL" }
            if let target = property.objectClassName {
                column += " REFERENCES \(quoteIdentifier(target))(\"_vk_id\") ON DELETE SET NULL"
            }
            columns.append(column)
        }
        var statements = ["CREATE TABLE \(tableName) (\(columns.joined(separator: ", ")))"]
        for property in properties where property.isIndexed || property.objectClassName != nil {
            let unique = property.isPrimaryKey ? "UNIQUE " : ""
            let index = quoteIdentifier("\(className)_\(property.storedName)_index")
            statements.append("CREATE \(unique)INDEX \(index) ON \(tableName)(\(quoteIdentifier(property.storedName)))")
        }
        return statements
    }

    var insertSQL: String {
        "INSERT INTO \(tableName) (\(columnList)) VALUES (\(properties.map { _ in "?" }.joined(separator: ", ")))"
    }

    func updateSQL(columns: [Int]) -> String {
        let assignments = columns.map { "\(quoteIdentifier(properties[$0].storedName)) = ?" }.joined(separator: ", ")
        return "UPDATE \(tableName) SET \(assignments) WHERE \"_vk_id\" = ?"
    }

    var deleteSQL: String { "DELETE FROM \(tableName) WHERE \"_vk_id\" = ?" }

    var selectByRowIDSQL: String { "SELECT \(columnList) FROM \(tableName) WHERE \"_vk_id\" = ?" }

    var selectByPrimaryKeySQL: String {
        let key = primaryKeyProperty.map { quoteIdentifier($0.storedName) } ?? "\"_vk_id\""
        return "SELECT \"_vk_id\", \(columnList) FROM \(tableName) WHERE \(key) = ?"
    }

    /// `SELECT _vk_id, columns… FROM table` (callers append WHERE / ORDER BY).
    var selectAllSQL: String { "SELECT \"_vk_id\", \(columnList) FROM \(tableName)" }

    // MARK: Stored definition

    /// What the vault records about the class: one line per stored column, in
    /// column-name order (so reordering declarations is not a change; renaming a
    /// Swift property through propertiesMapping is not either).
    var storedDefinition: String {
        properties.sorted { $0.storedName < $1.storedName }.map { property in
            [property.storedName, property.objectClassName ?? property.type.rawValue, property.isOptional ? "optional" : "required",
             property.isPrimaryKey ? "primary" : (property.isIndexed ? "indexed" : "plain")].joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// Human-readable differences between a stored definition and the code's.
    static func differences(className: String, stored: String, code: String) -> [String] {
        func parse(_ text: String) -> [String: String] {
            Dictionary(text.split(separator: "\n").map { line -> (String, String) in
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
        }
        let old = parse(stored), new = parse(code)
        var result: [String] = []
        for name in Set(old.keys).union(new.keys).sorted() {
            switch (old[name], new[name]) {
            case (nil, let added?): result.append("\(className).\(name) was added (\(added))")
            case (let removed?, nil): result.append("\(className).\(name) was removed (was \(removed))")
            case (let before?, let after?) where before != after: result.append("\(className).\(name) changed from \(before) to \(after)")
            default: break
            }
        }
        return result
    }
}
