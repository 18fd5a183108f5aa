/// What `add` and `create` do when an object with the same primary key exists.
/// Also spelled `Vault.UpdatePolicy`, with Realm's raw values.
public enum UpdatePolicy: Int, Sendable {
    /// Fail: the write transaction throws ``VaultObjectError/duplicatePrimaryKey(className:value:)``.
    case error = 1
    /// Write only the properties whose values differ from the stored ones.
    ///
    /// What the object holds is updated where it is, as in Realm: a stored
    /// embedded object keeps its identity and takes the new values (accessors and
    /// observers of it stay valid); a list is updated position by position (extra
    /// elements appended, surplus ones removed from the end); a map's given keys
    /// and a set's given values are added or updated, and its others kept. A
    /// collection in which nothing differs is not written and reports no change.
    case modified = 3
    /// Write every property: embedded objects are replaced by new ones (accessors
    /// to the old ones are invalidated) and collections by the given contents.
    case all = 2
}
