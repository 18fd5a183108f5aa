import Foundation

extension MemoryReplica {
    /// Every present object's visible values as canonical text: classes and
    /// keys sorted, properties by name, lists in order, set members and map
    /// keys sorted, links to absent objects as `nil` (dropped from lists and sets).
    /// Two devices hold the same objects exactly when their dumps are equal.
    public func dump() -> String {
        let present = objects.filter { $0.value.isPresent }
            .sorted { ($0.key.className, $0.key.primaryKey.canonicalText) < ($1.key.className, $1.key.primaryKey.canonicalText) }
        var lines: [String] = []
        for (key, state) in present {
            lines.append("\(key.className)(\(key.primaryKey.canonicalText))")
            for (property, register) in state.properties.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(property) = \(render(register.value))")
            }
            for (property, collection) in state.collections.sorted(by: { $0.key < $1.key }) {
                let list = ListOrder.visibleElements(of: collection, isVisible: isVisible).compactMap { collection.elements[$0]?.value.value }
                let members = collection.members.filter { $0.value.isPresent && isVisible($0.key) }.map { render($0.key) }.sorted()
                let entries = collection.entries.compactMap { entry -> String? in
                    guard let value = entry.value.value else { return nil }
                    return "\(entry.key): \(render(value))"
                }.sorted()
                lines.append("  \(property) = [\(list.map(render).joined(separator: ", "))] {\(members.joined(separator: ", "))} [\(entries.joined(separator: ", "))]")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func render(_ value: SyncValue) -> String {
        if case .link(let reference) = value, !isLive(reference) { return "nil" }
        return value.canonicalText
    }
}

extension SyncValue {
    /// A deterministic text form (dumps, sorting).
    public var canonicalText: String {
        switch self {
        case .null: return "nil"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return "\(value)"
        case .float(let bits): return "f:\(String(bits, radix: 16))"
        case .double(let bits): return "d:\(String(bits, radix: 16))"
        case .string(let value): return "\"\(value)\""
        case .data(let bytes): return "0x" + bytes.map { String(format: "%02x", $0) }.joined()
        case .date(let bits): return "date:\(String(bits, radix: 16))"
        case .decimal(let text): return "dec:\(text)"
        case .objectId(let bytes): return "oid:" + bytes.map { String(format: "%02x", $0) }.joined()
        case .uuid(let bytes): return "uuid:" + bytes.map { String(format: "%02x", $0) }.joined()
        case .link(let reference): return "→\(reference.className)(\(reference.primaryKey.canonicalText))#\(reference.incarnation)"
        }
    }
}
