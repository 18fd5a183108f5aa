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
/// old line's last field is one of the fixed kinds (`plain`, `indexed`,
/// `primary`, `primary-rowid`), so it can never be a JSON array (which ends
/// with `]`), and one whose name held spaces is read back from the right
/// (``decode(_:)``).
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
    ///
    /// Builds before this spelling wrote a name (or a linked class name) holding spaces
    /// as it was, so a plain line may have more than four words. It is read from the
    /// right, where the fields have fixed forms: the kind, `optional|required`, then
    /// the element (a type or class name, or `list<…>`, `set<…>`, `map<…>` back to the
    /// word holding its `<`); what is left is the name, spaces kept as they were.
    static func decode(_ line: Substring) -> [String] {
        if line.first == "[", line.last == "]",
           let fields = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String] {
            return fields
        }
        let words = line.split(separator: " " as Character, omittingEmptySubsequences: false).map { String($0) }
        guard words.count > 4, let kind = words.last, kinds.contains(kind), ["optional", "required"].contains(words[words.count - 2]) else {
            return line.split(separator: " " as Character).map { String($0) }
        }
        // The element: one word, or a collection whose `<…>` spans several.
        var elementStart = words.count - 3
        if words[elementStart].hasSuffix(">"), !words[elementStart].contains("<") {
            while elementStart > 1, !words[elementStart].contains("<") { elementStart -= 1 }
        }
        guard elementStart >= 1 else { return words }
        return [words[..<elementStart].joined(separator: " "), words[elementStart..<(words.count - 2)].joined(separator: " "),
                words[words.count - 2], kind]
    }

    /// The last field's values.
    private static let kinds: Set<String> = ["plain", "indexed", "primary", "primary-rowid"]
}
