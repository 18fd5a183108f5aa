import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
@_silgen_name("malloc_usable_size") private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer?) -> Int
#elseif canImport(Darwin)
import Darwin
private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer?) -> Int { malloc_size(pointer) }
#endif

/// Finds a model class's `@Persisted` properties once per class, never per object.
///
/// HOW
///
/// 1. A *prototype* instance is constructed while this thread is in discovery
///    mode: every `Persisted.init` stamps its `discoveryTag` with a random seed
///    XOR a counter, so the tag says in which order the property was initialised.
/// 2. `Mirror` over the prototype (and its superclass mirrors) gives each
///    property's name, value type and options, and its tag.
/// 3. The prototype's memory is scanned for the tags: each tag's address is
///    where that property's `Persisted` struct lives inside every instance of
///    the class (Swift stores class properties inline at fixed offsets).
///
/// With the offsets, `Vault.add` reads an unmanaged object's values directly
/// (Mirror costs ~17 µs per object; this, nanoseconds). With the prototype, a
/// managed property's getter maps its storage key path to the property by
/// reading the tag through the same key path on the prototype.
///
/// WHAT IT ASSUMES, AND CHECKS
///
/// Each tag is found exactly once in the prototype and Mirror reports the same
/// number of properties; otherwise discovery fails with an error naming the
/// class (for example when a property's default value constructs another object
/// during discovery).
@usableFromInline
enum SchemaDiscovery {
    /// Per-thread discovery state (pthread-specific, so object construction on
    /// other threads is unaffected and the check costs one load).
    final class State {
        let seed: UInt64
        var counter: UInt64 = 0
        init(seed: UInt64) { self.seed = seed }
    }

    /// Safe to share: the key is created once and never changes (pthread keys are process-wide by design).
    private struct Key: @unchecked Sendable { let key: pthread_key_t }
    private static let threadKey: Key = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return Key(key: key)
    }()

    /// The tag for the `Persisted` being initialised: 0 outside discovery.
    @usableFromInline
    static func nextTag() -> UInt64 {
        guard let raw = pthread_getspecific(threadKey.key) else { return 0 }
        let state = Unmanaged<State>.fromOpaque(raw).takeUnretainedValue()
        let tag = state.seed ^ state.counter
        state.counter += 1
        return tag
    }

    /// Which property a key path read on a prototype (typed queries name
    /// properties by key path; the prototype's getters report their tag here).
    final class AccessRecord {
        var tag: UInt64?
        /// The key path of the wrapped property the getter serves (to tell a
        /// `@Persisted` property from a computed one that reads it).
        var keyPath: AnyKeyPath?
    }

    private static let recordKey: Key = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return Key(key: key)
    }()

    /// Called by a prototype's getter: notes the property's tag for `recordingAccess`.
    @usableFromInline
    static func recordPrototypeAccess(_ tag: UInt64, wrappedKeyPath: AnyKeyPath) {
        guard let raw = pthread_getspecific(recordKey.key) else { return }
        let record = Unmanaged<AccessRecord>.fromOpaque(raw).takeUnretainedValue()
        if record.tag == nil {
            record.tag = tag
            record.keyPath = wrappedKeyPath
        }
    }

    /// The tag and wrapped key path of the first `@Persisted` property `body` reads on a prototype.
    static func recordingAccess(_ body: () -> Void) -> (tag: UInt64, keyPath: AnyKeyPath?)? {
        let record = AccessRecord()
        let previous = pthread_getspecific(recordKey.key)
        pthread_setspecific(recordKey.key, Unmanaged.passUnretained(record).toOpaque())
        withExtendedLifetime(record) { body() }
        pthread_setspecific(recordKey.key, previous)
        return record.tag.map { ($0, record.keyPath) }
    }

    /// What discovery learns about one property.
    struct DiscoveredProperty {
        var label: String
        var constructionIndex: Int
        var offset: Int
        var options: PropertyOptions
        var valueType: any PersistableValue.Type
    }

    /// Constructs the prototype and discovers the properties of `type`.
    static func discover(_ modelType: ObjectBase.Type) throws(VaultObjectError) -> (prototype: ObjectBase, seed: UInt64, properties: [DiscoveredProperty]) {
        let className = String(describing: modelType)
        let state = State(seed: UInt64.random(in: 1...UInt64.max) & ~UInt64(0xFFFF))
        let retained = Unmanaged.passRetained(state)
        pthread_setspecific(threadKey.key, retained.toOpaque())
        let prototype = modelType.init()
        pthread_setspecific(threadKey.key, nil)
        retained.release()
        let count = Int(state.counter)

        // Mirror: names, types, options, tags; the root class's properties first.
        var levels: [[DiscoveredProperty]] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            var level: [DiscoveredProperty] = []
            for child in current.children {
                guard let persisted = child.value as? AnyPersisted, let label = child.label else { continue }
                let index = persisted.discoveryTag ^ state.seed
                guard index < UInt64(count) else {
                    throw .invalidModel(className: className, property: label, reason: "its @Persisted value was not created with the object (VaultKit could not discover it)")
                }
                level.append(DiscoveredProperty(label: label, constructionIndex: Int(index), offset: -1,
                                                options: persisted.options, valueType: type(of: persisted).valueType))
            }
            levels.append(level)
            mirror = current.superclassMirror
        }
        var properties = Array(levels.reversed().joined())
        guard properties.count == count else {
            throw .invalidModel(className: className, property: nil, reason: "found \(properties.count) @Persisted properties but \(count) were constructed; a property's default value must not create another object")
        }

        // The memory scan: where does each tag live?
        var offsets = [Int](repeating: -1, count: count)
        withExtendedLifetime(prototype) {
            let base = Unmanaged.passUnretained(prototype).toOpaque()
            let size = mallocUsableSize(base)
            var offset = 16   // after the object header (metadata, reference counts)
            while offset + 8 <= size {
                let index = base.load(fromByteOffset: offset, as: UInt64.self) ^ state.seed
                if index < UInt64(count) {
                    offsets[Int(index)] = offsets[Int(index)] == -1 ? offset : -2
                }
                offset += 8
            }
        }
        for i in properties.indices {
            let tagOffset = offsets[properties[i].constructionIndex]
            guard tagOffset >= 0 else {
                throw .invalidModel(className: className, property: properties[i].label, reason: "VaultKit could not locate the property's storage")
            }
            properties[i].offset = tagOffset - persistedTagOffset(properties[i].valueType)
        }
        return (prototype, state.seed, properties)
    }

    /// Where `discoveryTag` sits inside `Persisted<Value>`.
    private static func persistedTagOffset<Value: PersistableValue>(_ type: Value.Type) -> Int {
        MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.discoveryTag) ?? 0
    }
}
