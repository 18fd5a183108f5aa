import Foundation
import VaultCore
@_spi(Interchange) import VaultKit

// MARK: - Importing into an existing vault
//
// Into a vault that exists, a document is merged: each object whose primary key
// the vault holds is updated (every property the document gives), the others are
// created; objects of classes without a primary key are always created. All of it
// is one write transaction of the vault (observers hear one commit; a failure
// writes nothing), in two passes over the document:
//
//   1. every object, without the properties that may hold links (links, lists,
//      sets and maps of links, mixed values, embedded objects whose class links);
//   2. those properties, each link found by its target's primary key in the vault
//      (or, for `{"class", "index"}`, the index-th object of that class the
//      document created in pass 1).
//
// The document's classes must be the vault's: every class and property it
// declares must exist with the same type, collection and link target (the vault
// may have more); a difference is an error naming them, before anything is written.
// Dates are kept to the nanosecond and decimals with their spelling, as in a new vault.

extension CanonicalJSONImport {
    /// Merges the document at `url` into `vault` (see the essay above): objects with a
    /// primary key the vault holds are updated, the others created; one transaction.
    /// - Parameters:
    ///   - url: The JSON document.
    ///   - vault: An open, writable vault whose classes include the document's.
    ///   - progress: Called with (objects written, objects in the document) every 1,000
    ///     objects of the first pass and at the end.
    /// - Throws: ``JSONImportError``; nothing is written when it throws.
    @discardableResult
    public static func importDocument(at url: URL, into vault: Vault,
                                      progress: ((Int, Int) -> Void)? = nil) throws(JSONImportError) -> JSONImportSummary {
        do {
            let document = try DocumentSchema.read(url)
            let stored = Dictionary(vault.storedSchema.objectSchema.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
            try checkCompatible(document.schemas, with: stored)
            try vault.writeInterchange { writer in
                try merge(document, from: url, into: writer, classes: stored, progress: progress)
            }
            return JSONImportSummary(schemaVersion: document.schemaVersion,
                                     classes: document.schemas.map { .init(className: $0.className, objects: document.counts[$0.className] ?? 0) })
        } catch let error as JSONImportError {
            throw error
        } catch let error as JSONSyntaxError {
            throw .malformed(error.description)
        } catch let error as JSONValueDecoding.Failure {
            throw .invalidValue(className: "(document)", object: "(one of its objects)", property: "(a value)", reason: error.reason)
        } catch let error as InterchangeError {
            throw .invalidValue(className: error.className, object: "(one of its objects)", property: error.property, reason: error.reason)
        } catch {
            throw .io("\((error as? Vault.Error)?.underlyingError ?? error)")
        }
    }

    private static func checkCompatible(_ classes: [ObjectSchema], with stored: [String: ObjectSchema]) throws {
        for schema in classes {
            guard let target = stored[schema.className] else {
                throw JSONImportError.invalidSchema(className: schema.className, property: "(class)", reason: "the vault has no such class")
            }
            if target.isEmbedded != schema.isEmbedded {
                throw JSONImportError.invalidSchema(className: schema.className, property: "(class)", reason: "embedded in one and not in the other")
            }
            if target.primaryKeyProperty?.storedName != schema.primaryKeyProperty?.storedName {
                throw JSONImportError.invalidSchema(className: schema.className, property: schema.primaryKeyProperty?.storedName ?? "(primary key)",
                                                    reason: "the primary key differs from the vault's")
            }
            for property in schema.properties {
                guard let match = target.properties.first(where: { $0.storedName == property.storedName && !$0.isLinkingObjects }) else {
                    throw JSONImportError.invalidSchema(className: schema.className, property: property.storedName, reason: "the vault's class has no such property")
                }
                if match.type != property.type || match.collectionKind != property.collectionKind || match.objectClassName != property.objectClassName {
                    throw JSONImportError.invalidSchema(className: schema.className, property: property.storedName,
                                                        reason: "its type differs from the vault's (\(match.description))")
                }
            }
        }
    }

    private static func merge(_ document: DocumentSchema, from url: URL, into writer: InterchangeWriter,
                              classes stored: [String: ObjectSchema], progress: ((Int, Int) -> Void)?) throws {
        /// Row ids of the objects created for classes without a primary key, by document position.
        var created: [String: [Int64]] = [:]
        let lookup: (String) -> ObjectSchema? = { stored[$0] }
        func deferred(_ property: Property) -> Bool { mayLink(property, classes: stored, depth: 0) }
        let resolve: (ObjectSchema, JSONValue) throws -> Int64 = { target, json in
            if case .number(let index)? = json["index"], json["class"] != nil {
                guard let position = Int(index), let rowID = created[target.className]?[safe: position] else {
                    throw JSONValueDecoding.Failure(reason: "a link to object \(index) of \(target.className), which the document does not create")
                }
                return rowID
            }
            guard let key = target.primaryKeyProperty else {
                throw JSONValueDecoding.Failure(reason: "a link to \(target.className), which has no primary key, without {\"class\", \"index\"}")
            }
            guard let rowID = try writer.rowID(of: target.className, primaryKey: try JSONValueDecoding.plain(json, type: key.type)) else {
                throw JSONValueDecoding.Failure(reason: "a link to a \(target.className) neither the vault nor the document holds")
            }
            return rowID
        }
        let decoder = JSONValueDecoding(classes: lookup, resolve: resolve)
        var done = 0
        /// Each primary key the document gives, by class: a key twice is refused, not merged twice.
        var keysSeen: [String: [String: Int]] = [:]
        // Pass 1: every object without the properties that may link.
        try document.forEachObject(in: url) { documentSchema, position, json in
            guard let schema = stored[documentSchema.className] else { return }
            if let key = schema.primaryKeyProperty {
                let text = try keyText(of: json, key: key, className: schema.className, position: position)
                if let earlier = keysSeen[schema.className]?[text] {
                    throw JSONImportError.invalidValue(className: schema.className, object: "at position \(position)", property: key.storedName,
                                                       reason: "the object at position \(earlier) has the same primary key; keys are unique")
                }
                keysSeen[schema.className, default: [:]][text] = position
            }
            // What the object gives: an existing object keeps the rest, a new one gets defaults.
            let writing = schema.properties.map { !deferred($0) && !$0.isLinkingObjects && json[$0.storedName] != nil }
            let values = try decoder.fields(json, of: schema, name: "at position \(position)", including: { writing[$0] })
            let rowID: Int64
            do {
                rowID = try writer.upsert(className: schema.className, values: values, writing: writing)
            } catch {
                throw objectError(error, className: schema.className, position: position)
            }
            if schema.primaryKeyProperty == nil { created[schema.className, default: []].append(rowID) }
            done += 1
            if done % 1_000 == 0 { progress?(done, document.objectCount) }
        }
        // Pass 2: the properties that may link, now that every target exists.
        try document.forEachObject(in: url) { documentSchema, position, json in
            guard let schema = stored[documentSchema.className], schema.properties.contains(where: deferred) else { return }
            let writing = schema.properties.map { deferred($0) && !$0.isLinkingObjects && json[$0.storedName] != nil }
            guard writing.contains(true) else { return }
            let values = try decoder.fields(json, of: schema, name: "at position \(position)", including: { writing[$0] })
            let rowID: Int64
            if let index = schema.primaryKeyIndex(in: schema), let key = values.indices.contains(index) ? json[schema.properties[index].storedName] : nil,
               let found = try writer.rowID(of: schema.className, primaryKey: try JSONValueDecoding.plain(key, type: schema.properties[index].type)) {
                rowID = found
            } else if let found = created[schema.className]?[safe: position] {
                rowID = found
            } else {
                return
            }
            do {
                try writer.update(className: schema.className, rowID: rowID, values: values, writing: writing)
            } catch {
                throw objectError(error, className: schema.className, position: position)
            }
        }
        progress?(done, document.objectCount)
    }

    /// The canonical text of an object's primary key; a missing key, or null for a required one, is refused.
    private static func keyText(of json: JSONValue, key: Property, className: String, position: Int) throws -> String {
        func refuse(_ reason: String) -> JSONImportError {
            .invalidValue(className: className, object: "at position \(position)", property: key.storedName, reason: reason)
        }
        guard case .object = json else { throw refuse("the object is not a JSON object") }
        guard let value = json[key.storedName] else { throw refuse("the object has no primary key") }
        if value == .null, !key.isOptional { throw refuse("null for a required primary key") }
        do {
            return try JSONValueDecoding.keyText(value, type: key.type)
        } catch let failure as JSONValueDecoding.Failure {
            throw refuse(failure.reason)
        }
    }

    /// Whether a property may hold a link: a link or collection of links, a mixed value,
    /// or an embedded object whose class (or one it embeds) may.
    private static func mayLink(_ property: Property, classes: [String: ObjectSchema], depth: Int) -> Bool {
        if property.type == .mixed { return true }
        guard property.type == .object, let target = property.objectClassName else { return false }
        guard let embedded = classes[target], embedded.isEmbedded, depth < 16 else { return true }
        return embedded.properties.contains { mayLink($0, classes: classes, depth: depth + 1) }
    }
}

private extension ObjectSchema {
    /// The index of the primary key among the properties.
    func primaryKeyIndex(in schema: ObjectSchema) -> Int? { schema.properties.firstIndex { $0.isPrimaryKey } }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
