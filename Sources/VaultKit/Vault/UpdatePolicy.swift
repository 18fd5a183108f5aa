/// What `add` and `create` do when an object with the same primary key exists.
/// Also spelled `Vault.UpdatePolicy`, with Realm's raw values.
public enum UpdatePolicy: Int, Sendable {
    /// Fail: the write transaction throws ``VaultObjectError/duplicatePrimaryKey(className:value:)``.
    case error = 1
    /// Write only the properties whose values differ from the stored ones.
    case modified = 3
    /// Write every property.
    case all = 2
}
