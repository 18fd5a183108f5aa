import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
import Synchronization

/// How many discoveries are running in the process. Every `Persisted.init`
/// (six per object a six-property query returns) asks whether its thread is
/// discovering; while none is, this one relaxed load answers, with no
/// thread-local lookup. (Linux only: `Atomic` needs macOS 15 / iOS 18, above
/// the package's floor; Apple platforms ask the thread-local directly.)
@usableFromInline let discoveriesRunning = Atomic<Int>(0)
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
///    XOR a counter, so the tag says in which order the property was initialised,
///    and hands its options (`primaryKey:`, `indexed:`, `originProperty:`) to the
///    discovery under that tag (the wrapper does not keep them).
/// 2. `Mirror` over the prototype (and its superclass mirrors) gives each
///    property's name, value type and tag; the tag gives its options.
/// 3. The prototype's memory is scanned for the tags: each tag's address is
///    where that property's `Persisted` struct lives inside every instance of
///    the class (Swift stores class properties inline at fixed offsets).
///
/// With the offsets, `Vault.add` reads an unmanaged object's values directly
/// (Mirror costs microseconds per object; this, nanoseconds: see
/// Benchmarks/README.md, "Schema discovery by offset"). With the prototype, a
/// managed property's getter maps its storage key path to the property by
/// reading the tag through the same key path on the prototype.
///
/// WHAT IT ASSUMES, AND CHECKS
///
/// The tag of every property Mirror reports is found exactly once in the
/// prototype; otherwise discovery fails with an error naming the class and
/// property. A default value that constructs another model object constructs
/// its properties too: their tags are taken, and never found in this
/// prototype's memory, which is all the scan reads.
@usableFromInline
enum SchemaDiscovery {
    /// Per-thread discovery state (pthread-specific, so object construction on
    /// other threads is unaffected and the check costs one load).
    final class State {
        let seed: UInt64
        var counter: UInt64 = 0
        /// The options each `Persisted` was constructed with, by construction
        /// index (absent: none given), see ``recordOptions(_:tag:)``.
        var options: [UInt64: PropertyOptions] = [:]
        init(seed: UInt64) { self.seed = seed }
    }

    /// Safe to share: the key is created once and never changes (pthread keys are process-wide by design).
    private struct Key: @unchecked Sendable { let key: pthread_key_t }
    private static let threadKey: Key = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return Key(key: key)
    }()

    /// What a Codable model's managed objects hold in their `Persisted`
    /// tags (see `ObjectSchema.bindManagedObject(_:)`); never read as a
    /// discovery tag, which only prototypes (never managed) use.
    static let managedTag = UInt64.max

    /// The tag for the `Persisted` being initialised: 0 outside discovery.
    /// Inlined into each `Persisted` initialiser (every property of every object
    /// made runs it): outside discovery, one load and no call.
    @inlinable
    static func nextTag() -> UInt64 {
        #if canImport(Glibc)
        // A thread that is discovering has raised the count itself, so it never reads 0 here.
        if discoveriesRunning.load(ordering: .relaxed) == 0 { return 0 }
        #endif
        return nextDiscoveryTag()
    }

    /// Records the options of the `Persisted` just given `tag` (by ``nextTag()``,
    /// so this thread is discovering): the wrapper does not keep them.
    @usableFromInline
    static func recordOptions(_ options: PropertyOptions, tag: UInt64) {
        guard options != PropertyOptions(), let raw = pthread_getspecific(threadKey.key) else { return }
        let state = Unmanaged<State>.fromOpaque(raw).takeUnretainedValue()
        state.options[tag ^ state.seed] = options
    }

    /// ``nextTag()`` while some thread discovers: this thread's next tag, if it is the one.
    @usableFromInline
    static func nextDiscoveryTag() -> UInt64 {
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
        /// Every tag read, in order (``recordingPath(_:)``).
        var tags: [UInt64] = []
        /// Whether getters hand out prototypes of linked classes, so a key path
        /// can be followed through links and collections (``recordingPath(_:)``).
        var traverses = false
    }

    private static let recordKey: Key = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return Key(key: key)
    }()

    /// Called by a prototype's getter: notes the property's tag for `recordingAccess`.
    @usableFromInline
    static func recordPrototypeAccess(_ tag: UInt64) {
        guard let raw = pthread_getspecific(recordKey.key) else { return }
        let record = Unmanaged<AccessRecord>.fromOpaque(raw).takeUnretainedValue()
        if record.tag == nil { record.tag = tag }
        if record.traverses { record.tags.append(tag) }
    }

    /// What a prototype's getter returns: the type's default value, or — while
    /// ``recordingPath(_:)`` follows a key path — a prototype of the linked
    /// class (a to-one link), or a collection holding one (lists, sets, maps
    /// under the key `""`, backlinks), so the key path's next step reads it.
    @usableFromInline
    static func prototypeValue<Value: PersistableValue>(_ type: Value.Type) -> Value {
        if let raw = pthread_getspecific(recordKey.key),
           Unmanaged<AccessRecord>.fromOpaque(raw).takeUnretainedValue().traverses,
           let traversable = Value.self as? any KeyPathTraversable.Type,
           let value = traversable.keyPathPrototype() as? Value {
            return value
        }
        return Value._vaultDefaultValue()
    }

    /// The tags of every `@Persisted` property `body` reads, following links and collections.
    static func recordingPath(_ body: () -> Void) -> [UInt64] {
        let record = AccessRecord()
        record.traverses = true
        let previous = pthread_getspecific(recordKey.key)
        pthread_setspecific(recordKey.key, Unmanaged.passUnretained(record).toOpaque())
        withExtendedLifetime(record) { body() }
        pthread_setspecific(recordKey.key, previous)
        return record.tags
    }

    /// The tag of the first `@Persisted` property `body` reads on a prototype.
    static func recordingAccess(_ body: () -> Void) -> UInt64? {
        let record = AccessRecord()
        let previous = pthread_getspecific(recordKey.key)
        pthread_setspecific(recordKey.key, Unmanaged.passUnretained(record).toOpaque())
        withExtendedLifetime(record) { body() }
        pthread_setspecific(recordKey.key, previous)
        return record.tag
    }

    /// What discovery learns about one property.
    struct DiscoveredProperty {
        var label: String
        var constructionIndex: Int
        var offset: Int
        var options: PropertyOptions
        var valueType: any PersistableValue.Type
        /// A `let` ``VaultProperty``: `offset` is where the object holds the
        /// reference to it, not a `Persisted`.
        var isLegacy = false
        /// Where the `Persisted`'s discovery tag sits in every instance (-1 for legacy properties).
        var tagOffset = -1
    }

    /// Constructs the prototype and discovers the properties of `type`.
    static func discover(_ modelType: ObjectBase.Type) throws(VaultObjectError) -> (prototype: ObjectBase, seed: UInt64, constructed: Int, properties: [DiscoveredProperty]) {
        let className = String(describing: modelType)
        // The low 16 bits are a fixed pattern, not zero: a word of stale seed bytes
        // beside small fields (two Bools: 0x0000…0x0101) can then never read as a tag.
        let state = State(seed: UInt64.random(in: 1...UInt64.max) & ~UInt64(0xFFFF) | 0x5A5A)
        let retained = Unmanaged.passRetained(state)
        #if canImport(Glibc)
        discoveriesRunning.add(1, ordering: .relaxed)
        defer { discoveriesRunning.subtract(1, ordering: .relaxed) }
        #endif
        pthread_setspecific(threadKey.key, retained.toOpaque())
        let prototype = modelType.init()
        pthread_setspecific(threadKey.key, nil)
        retained.release()
        let count = Int(state.counter)

        // Mirror: names, types, tags (and by them options); the root class's properties first.
        var levels: [[DiscoveredProperty]] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            var level: [DiscoveredProperty] = []
            for child in current.children {
                guard let label = child.label else { continue }
                if let legacy = child.value as? any AnyVaultProperty {
                    let index = legacy.discoveryTag ^ state.seed
                    guard index < UInt64(count) else {
                        throw .invalidModel(className: className, property: label, reason: "its VaultProperty was not created with the object (declare it `let \(label) = VaultProperty<…>()`)")
                    }
                    let offset = try referenceOffset(of: legacy, in: prototype, className: className, label: label)
                    level.append(DiscoveredProperty(label: label, constructionIndex: Int(index), offset: offset, options: PropertyOptions(),
                                                    valueType: type(of: legacy).valueType, isLegacy: true))
                    continue
                }
                guard let persisted = child.value as? AnyPersisted else { continue }
                let index = persisted.discoveryTag ^ state.seed
                guard index < UInt64(count) else {
                    throw .invalidModel(className: className, property: label, reason: "its @Persisted value was not created with the object (VaultKit could not discover it)")
                }
                level.append(DiscoveredProperty(label: label, constructionIndex: Int(index), offset: -1,
                                                options: state.options[index] ?? PropertyOptions(), valueType: type(of: persisted).valueType))
            }
            levels.append(level)
            mirror = current.superclassMirror
        }
        // More may have been constructed than the class has: a default value that
        // is another object (`@Persisted var owner: Dog? = Dog()`) constructs that
        // object's properties too. Their tags live in that object's memory, not
        // the prototype's, so the scan below never finds them.
        var properties = Array(levels.reversed().joined())

        // The memory scan: where does each tag live? A tag can also be met in
        // bytes nobody initialised (struct padding, the unused payload of a nil
        // optional) that a stack temporary of an earlier property left behind:
        // every place is a candidate, and the real one is decided below.
        var candidates = [[Int]](repeating: [], count: count)
        withExtendedLifetime(prototype) {
            let base = Unmanaged.passUnretained(prototype).toOpaque()
            let size = mallocUsableSize(base)
            var offset = 16   // after the object header (metadata, reference counts)
            while offset + 8 <= size {
                let index = base.load(fromByteOffset: offset, as: UInt64.self) ^ state.seed
                if index < UInt64(count) { candidates[Int(index)].append(offset) }
                offset += 8
            }
        }
        // A property's storage is a whole `Persisted` starting at its tag: a
        // candidate inside another property's storage is a stale copy. Fix the
        // properties with one candidate, discard what their storage covers, repeat.
        var tagOffsets = [Int](repeating: -1, count: count)
        var occupied: [Range<Int>] = []
        var progress = true
        while progress {
            progress = false
            for property in properties where !property.isLegacy && tagOffsets[property.constructionIndex] < 0 {
                let viable = candidates[property.constructionIndex].filter { offset in !occupied.contains { $0.contains(offset) } }
                guard viable.count == 1, let offset = viable.first else { continue }
                tagOffsets[property.constructionIndex] = offset
                let start = offset - persistedTagOffset(property.valueType)
                occupied.append(start..<(start + persistedSize(property.valueType)))
                progress = true
            }
        }
        for i in properties.indices where !properties[i].isLegacy {
            let tagOffset = tagOffsets[properties[i].constructionIndex]
            guard tagOffset >= 0 else {
                throw .invalidModel(className: className, property: properties[i].label, reason: "VaultKit could not locate the property's storage")
            }
            properties[i].offset = tagOffset - persistedTagOffset(properties[i].valueType)
            properties[i].tagOffset = tagOffset
        }
        return (prototype, state.seed, count, properties)
    }

    /// Where `prototype` holds its reference to `property` (a `let` stored
    /// property of class type is one pointer-sized word at a fixed offset).
    private static func referenceOffset(of property: any AnyVaultProperty, in prototype: ObjectBase,
                                        className: String, label: String) throws(VaultObjectError) -> Int {
        let address = UInt(bitPattern: ObjectIdentifier(property))
        var found: [Int] = []
        withExtendedLifetime(prototype) {
            let base = Unmanaged.passUnretained(prototype).toOpaque()
            let size = mallocUsableSize(base)
            var offset = 16
            while offset + 8 <= size {
                if base.load(fromByteOffset: offset, as: UInt.self) == address { found.append(offset) }
                offset += 8
            }
        }
        guard found.count == 1, let offset = found.first else {
            throw .invalidModel(className: className, property: label, reason: "VaultKit could not locate the property's storage (declare it `let \(label) = VaultProperty<…>()`)")
        }
        return offset
    }

    /// How many bytes a `Persisted<Value>` occupies.
    private static func persistedSize<Value: PersistableValue>(_ type: Value.Type) -> Int {
        MemoryLayout<Persisted<Value>>.size
    }

    /// Where `discoveryTag` sits inside `Persisted<Value>`.
    private static func persistedTagOffset<Value: PersistableValue>(_ type: Value.Type) -> Int {
        MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.discoveryTag) ?? 0
    }
}
