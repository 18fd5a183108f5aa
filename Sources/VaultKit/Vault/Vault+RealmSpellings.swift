import Foundation

// Realm's nested names and convenience methods on `Realm`, under `Vault`.

extension Vault {
    /// What `add` and `create` do with an existing primary key (Realm's `Realm.UpdatePolicy`).
    public typealias UpdatePolicy = VaultKit.UpdatePolicy
    /// What a vault observer is told (Realm's `Realm.Notification`).
    public typealias Notification = VaultNotification
    /// The handle of an ``asyncOpen(configuration:callbackQueue:callback:)`` (Realm's `Realm.AsyncOpenTask`).
    public typealias AsyncOpenTask = VaultKit.AsyncOpenTask
    /// The block ``observe(_:)`` takes (Realm's `Realm.NotificationBlock`).
    public typealias NotificationBlock = (_ notification: VaultNotification, _ vault: Vault) -> Void

    /// A frozen copy of `object` (see ``ObjectBase/freeze()``).
    public func freeze<T: ObjectBase>(_ object: T) -> T { object.freeze() }

    /// The live counterpart of the frozen `object`, read through this vault;
    /// `nil` when it was deleted since (see ``ObjectBase/thaw(in:)``).
    public func thaw<T: ObjectBase>(_ object: T) -> T? { object.thaw(in: self) }

    /// A frozen copy of `collection` (``Results``, ``List``, ``MutableSet``,
    /// ``Map``, ``LinkingObjects``): readable from any thread, never changing.
    public func freeze<Collection: ThreadConfined>(_ collection: Collection) -> Collection { collection.freeze() }

    /// Deletes the objects a map of objects holds (the map keeps its keys, now `nil`).
    public func delete<Key: MapKey, Value: ObjectBase>(_ map: Map<Key, Value?>) {
        delete(map.compactMap { $0.value })
    }
}
