/// What `add` and `create` do when an object with the same primary key exists.
public enum UpdatePolicy: Sendable {
    /// Fail: the write transaction throws ``VaultObjectError/duplicatePrimaryKey(className:value:)``.
    case error
    /// Write only the properties whose values differ from the stored ones.
    case modified
    /// Write every property.
    case all
}
