/// Everything that can go wrong while opening or reading a `.realm` file.
///
/// Every failure the file's contents can cause surfaces as one of these cases:
/// the reader never traps on a corrupt, truncated or foreign file. Messages say
/// what was found and where, so that a person can act on them; they never
/// contain key bytes or stored values.
public enum RealmFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not start with a Realm header (`"T-DB"` at byte 16), and
    /// does not look like an encrypted Realm file either.
    case notARealmFile
    /// The file is shorter than its own structure says it must be.
    case truncated(expected: Int, actual: Int)
    /// The file's structure is inconsistent; the string says where
    /// (for example "ref 0x1F08 outside the file (size 0x1000) in table class_Post").
    case corrupt(String)
    /// The header names a file format this reader does not read (it reads 22, 23 and 24).
    case unsupportedFileFormat(Int)
    /// The file is encrypted and no key was given.
    case encryptionKeyRequired
    /// A key was given but the file is not encrypted.
    case fileNotEncrypted
    /// The key does not decrypt the file: the first page's HMAC does not match.
    case wrongEncryptionKey
    /// The key is not Realm's 64 bytes long.
    case invalidKeyLength(Int)
    /// A page of an encrypted file failed its HMAC check (after the first page
    /// was verified), or was never written although the file refers to it.
    case decryptionFailed(page: Int)
    /// A column has a type this reader does not know.
    case unsupportedColumnType(class: String, property: String, type: Int)
    /// No table `class_<name>` exists in the file.
    case unknownClass(String)
    /// A value the file holds cannot be one Realm wrote: a string that is not valid
    /// UTF-8, a date whose nanoseconds are out of range, a decimal that does not decode,
    /// a Boolean that is neither true nor false. Such a value is refused, never altered.
    ///
    /// `className` and `property` name where the value is, and `objectKey` the object
    /// (its `RealmObject.key`); they are empty (nil) only where the reader cannot know them.
    /// `reason` says what is wrong without showing the value.
    case invalidValue(className: String, objectKey: Int64?, property: String, reason: String)
    /// The operating system refused to open, stat or map the file.
    case io(String)

    /// A sentence describing the failure and what to do about it.
    public var description: String {
        switch self {
        case .notARealmFile:
            return "not a Realm file: the header has no \"T-DB\" mnemonic"
                + " (if this is an encrypted Realm file, pass its 64-byte encryption key)"
        case let .truncated(expected, actual):
            return "the file is truncated: its structure needs at least \(expected) bytes"
                + " but it has \(actual); copy the file again from its source"
        case let .corrupt(location):
            return "the file is corrupt: \(location)"
        case let .unsupportedFileFormat(version):
            if version < 22 {
                return "file format \(version) is not supported: open and save it once with"
                    + " RealmSwift ≥ 10.8 (Realm Core ≥ 11), which upgrades it to format 22 or later"
            }
            return "file format \(version) is not supported: this reader reads formats 22, 23 and 24"
                + " (written by Realm Core 11 to 20)"
        case .encryptionKeyRequired:
            return "the file is encrypted: pass its 64-byte encryption key"
        case .fileNotEncrypted:
            return "the file is not encrypted: open it without an encryption key"
        case .wrongEncryptionKey:
            return "the encryption key does not match this file (the first page fails its HMAC check)"
        case let .invalidKeyLength(length):
            return "an encryption key must be 64 bytes long, not \(length)"
        case let .decryptionFailed(page):
            return "page \(page) of the encrypted file fails its HMAC check: the file is damaged"
        case let .unsupportedColumnType(className, property, type):
            return "property \(className).\(property) has column type \(type), which this reader does not know"
        case let .unknownClass(name):
            return "no class named \"\(name)\" in this file (see RealmFile.classes)"
        case let .invalidValue(className, objectKey, property, reason):
            var place = property.isEmpty ? "" : "property \(property)"
            if let objectKey { place += (place.isEmpty ? "" : " of ") + "the object with key \(objectKey)" }
            if !className.isEmpty { place += (place.isEmpty ? "class " : " of class ") + className }
            return "the file is damaged: " + (place.isEmpty ? "it" : place) + " holds \(reason)"
        case let .io(message):
            return "cannot read the file: \(message)"
        }
    }
}

extension RealmFileError {
    /// A value that cannot be one Realm wrote, before the caller knows where it is
    /// (`ClusterLeafCursor` adds the class, object and property).
    static func undecodable(_ reason: String) -> RealmFileError {
        .invalidValue(className: "", objectKey: nil, property: "", reason: reason)
    }

    /// This error with the class, object and property filled in where they are still
    /// unknown (an error from an embedded object keeps the innermost names).
    func located(className: String, objectKey: Int64?, property: String) -> RealmFileError {
        guard case let .invalidValue(knownClass, knownKey, knownProperty, reason) = self else { return self }
        if !knownClass.isEmpty { return self }
        return .invalidValue(className: className, objectKey: knownKey ?? objectKey,
                             property: knownProperty.isEmpty ? property : knownProperty, reason: reason)
    }
}
