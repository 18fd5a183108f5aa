/// Errors of the object layer: invalid models, schema mismatches, misuse.
///
/// Storage errors (wrong key, integrity, I/O) are ``VaultError``; a `Vault`
/// throws either.
public enum VaultObjectError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    /// A model class cannot be stored as declared (the message names the class and property).
    case invalidModel(className: String, property: String?, reason: String)
    /// The vault's stored schema differs from the code's; the list says how.
    case migrationRequired(path: String, storedVersion: UInt64, codeVersion: UInt64, differences: [String])
    /// An object with the same primary key exists already (`add(_:update: .error)`).
    /// `value` names the primary key *property*: a stored value never appears in an error.
    case duplicatePrimaryKey(className: String, value: String)

    /// ``duplicatePrimaryKey(className:value:)`` for a row of `schema` that SQLite
    /// refused: names the key property, never the value (it may be a user's data, SECURITY.md).
    static func duplicateKey(of schema: ObjectSchema) -> VaultObjectError {
        .duplicatePrimaryKey(className: schema.className, value: schema.primaryKeyProperty?.name ?? "?")
    }
    /// A write API was called outside a write transaction.
    case notInWriteTransaction(String)
    /// `beginWrite()` while a write transaction is open.
    case alreadyInWriteTransaction
    /// A class was used that is not in the vault's schema.
    case unknownType(String)
    /// An object that was deleted (or belongs to another vault) was used.
    case invalidatedObject(className: String)
    /// An object from another vault file or instance was passed in.
    case wrongVault(className: String)
    /// `add(_:update:)` or `create(_:value:update:)` with `.modified` or `.all` for a class
    /// without a primary key: there is no existing object to update (Realm's rule).
    case noPrimaryKey(className: String)
    /// A value cannot be stored in a property (wrong type in `create(_:value:)`, a `.` or `$` in a map key).
    case invalidValue(className: String, property: String, reason: String)
    /// Not 24 hex digits.
    case invalidObjectId(String)
    /// A write would keep more versions alive than `maximumNumberOfActiveVersions` allows.
    case tooManyActiveVersions(count: Int, limit: UInt)
    /// An asynchronous write waited longer than the busy timeout for the write lock.
    case writeLockTimeout(path: String, seconds: Int)
    /// ``Vault/cancelAsyncWrite(_:)`` was given an id that is not pending (it ran, or never existed).
    case unknownAsyncTransaction(AsyncTransactionId)

    public var description: String {
        switch self {
        case .invalidModel(let className, let property, let reason):
            return "Invalid model \(className)\(property.map { ".\($0)" } ?? ""): \(reason)."
        case .migrationRequired(let path, let stored, let code, let differences):
            return "Migration required for \(path): the stored schema (version \(stored)) differs from the code's (version \(code)): \(differences.joined(separator: "; ")). Increase schemaVersion and add a migration, or set deleteVaultIfMigrationNeeded."
        case .duplicatePrimaryKey(let className, let value):
            return "An object of type \(className) with the same primary key (\(value)) exists already (use update: .modified or .all to update it)."
        case .notInWriteTransaction(let operation):
            return "\(operation) needs a write transaction: wrap it in vault.write { … }."
        case .alreadyInWriteTransaction:
            return "The vault is already in a write transaction."
        case .unknownType(let name):
            return "\(name) is not part of this vault's schema: add it to Configuration.objectTypes."
        case .invalidatedObject(let className):
            return "The \(className) object was deleted or its vault was invalidated."
        case .wrongVault(let className):
            return "The \(className) object belongs to another vault."
        case .noPrimaryKey(let className):
            return "'\(className)' does not have a primary key and can not be updated: add it with update: .error (the default)."
        case .invalidValue(let className, let property, let reason):
            return "Invalid value for \(className).\(property): \(reason)."
        case .invalidObjectId(let text):
            return "'\(text)' is not an ObjectId (24 hexadecimal digits)."
        case .tooManyActiveVersions(let count, let limit):
            return "Number of active versions (\(count)) in the vault exceeded the limit of \(limit): vaults on other threads or queues hold old versions. Call refresh() or invalidate() on vaults left idle, or raise maximumNumberOfActiveVersions."
        case .writeLockTimeout(let path, let seconds):
            return "The asynchronous write to \(path) waited \(seconds) s for the write lock, which another connection or process held all that time; try again later, or find the transaction left open."
        case .unknownAsyncTransaction(let id):
            return "No asynchronous write with id \(id) is pending: it has run already, or was cancelled."
        }
    }
}
