import Foundation

/// The spelling of one line of a class's stored definition (see
/// `ObjectSchema.storedDefinition`): four fields — stored name, element,
/// `optional|required`, kind.
///
/// Fields are separated by one space. A name may hold spaces itself (a vault
/// stores any name a JSON document or a Realm file gives, `"first name"` or
/// `" a"` included), so a line any of whose fields contains a space is written
/// instead as a JSON array of the four strings: `["first name","string","optional","plain"]`.
///
/// Reading is unambiguous for files written before this spelling existed: an
/// old line never contains a field with a space, and its last field is one of
/// the fixed kinds (`plain`, `indexed`, `primary`, `primary-rowid`), so it can
/// never be a JSON array (which ends with `]`).
enum StoredDefinitionLine {
    /// The line for `fields`.
    static func encode(_ fields: [String]) -> String {
        guard fields.contains(where: { $0.contains(" ") || $0.isEmpty }) else { return fields.joined(separator: " ") }
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.withoutEscapingSlashes]),
              let text = String(data: data, encoding: .utf8) else {
            return fields.joined(separator: " ")
        }
        return text
    }

    /// The fields of `line`: a JSON array of strings, or the plain spelling split at its spaces.
    static func decode(_ line: Substring) -> [String] {
        if line.first == "[", line.last == "]",
           let fields = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String] {
            return fields
        }
        return line.split(separator: " " as Character).map { String($0) }
    }
}
