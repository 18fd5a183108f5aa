import Foundation
import VaultCore

/// An encrypted object store: Realm's `Realm`, renamed.
///
/// ```swift
/// var config = Vault.Configuration(fileURL: url, encryptionKey: key64)
/// config.objectTypes = [Person.self]
/// let vault = try Vault(configuration: config)
/// try vault.write { vault.add(Person(firstName: "Ada"), update: .modified) }
/// let people = vault.objects(Person.self)
/// ```
///
/// ## Threads
/// A `Vault` and its managed objects belong to the isolation domain that
/// opened them: the actor, when opened by code isolated to one (valid across
/// suspension points), else the thread (or the queue given to
/// ``init(configuration:queue:)``). Use from elsewhere stops the program with
/// Realm's "incorrect thread" message. Move data across with a
/// ``ThreadSafeReference`` or a frozen copy (``freeze()``); see the Threading article.
///
/// ## Errors
/// Writes are transactional: ``write(_:)`` throws the first error met inside
/// its block (a duplicate primary key, a deleted object, an I/O or integrity
/// failure) and rolls everything back. Reads that cannot throw (property
/// getters, `count`, iteration) stop the process with a message if the vault
/// turns out to be damaged mid-read — they never return different data. Call
/// `try vault.verify()` (at launch, say) to find damage as a thrown error.
///
/// Modifying a managed object outside a write transaction is a programmer
/// error and traps, naming the class and property, as in Realm.
public final class Vault {
    /// The configuration the vault was opened with.
    public let configuration: Configuration
    /// The state behind this handle, shared by every `Vault` opened on this
    /// thread for the same file with a compatible configuration (Realm's
    /// per-thread instance cache): they read the same version and see each
    /// other's writes at once.
    let session: VaultSession

    /// Opens the vault of `Vault.Configuration.defaultConfiguration`, confined
    /// as ``init(configuration:isolation:)`` says.
    ///
    /// - Parameter isolation: where the vault may be used; leave the default (the caller's actor).
    public convenience init(isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(configuration: .defaultConfiguration, isolation: isolation)
    }

    /// Opens the vault of `Vault.Configuration.defaultConfiguration` confined to
    /// `queue` (see ``init(configuration:queue:)``), or to the calling thread with `nil`.
    public convenience init(queue: DispatchQueue?) throws {
        try self.init(configuration: .defaultConfiguration, queue: queue)
    }

    /// Opens (creating if needed) the vault described by `configuration`, and
    /// checks the stored schema against the code's.
    ///
    /// On a thread (or actor) that has this file open already with a compatible
    /// configuration (same key, read-only flag, schema version and classes),
    /// the new `Vault` shares that instance's state, as Realm returns its
    /// cached instance: no second set of connections, one version.
    ///
    /// - Parameters:
    ///   - configuration: the file (or in-memory name), key, schema and options.
    ///   - isolation: where the vault may be used; leave the default
    ///     (`#isolation`, the caller's actor). Called from code isolated to an
    ///     actor, the vault is confined to that actor and stays valid across its
    ///     suspension points; from the main actor, to the main thread; from
    ///     code that is not isolated, to the calling thread (so in a
    ///     non-isolated `async` function, use it before the next `await`).
    /// - Throws: ``Vault/Error`` with Realm's code, wrapping VaultKit's error.
    public init(configuration: Configuration, isolation: isolated (any Actor)? = #isolation) throws {
        self.configuration = configuration
        if let shared = VaultSession.cached(for: configuration, actor: isolation) {
            session = shared
        } else {
            do {
                session = try VaultSession(configuration: configuration, actor: isolation)
                try finishOpening()
            } catch {
                throw Vault.Error.wrapping(error)
            }
        }
        try VaultSyncActivation.activate(self)
    }

    /// Registers the schema (deleting the vault first if a migration is needed
    /// and the configuration says so), then makes the session the one this
    /// thread or queue shares.
    private func finishOpening() throws {
        do {
            try prepareStorage()
        } catch let error as VaultObjectError {
            guard case .migrationRequired = error, configuration.deleteVaultIfMigrationNeeded,
                  case .file(let url) = session.database.configuration.storage else { throw error }
            VaultLog.log(.warn, "deleted the vault at \(url.path): its schema needed a migration and deleteVaultIfMigrationNeeded is set")
            try session.reopen(deletingFilesAt: url)
            try prepareStorage()
        }
        try compactOnLaunchIfAsked()
        VaultSession.remember(session)
        VaultLog.log(.detail, "opened \(path)\(configuration.readOnly ? " read-only" : "") with \(session.schemas.byName.count) classes (schema version \(configuration.schemaVersion))")
    }

    /// Another handle on an open session (deliveries scheduled on the main queue make one).
    init(sharing session: VaultSession) {
        self.configuration = session.configuration
        self.session = session
    }

    /// Opens the vault confined to a serial `queue` (Realm's
    /// `Realm(configuration:queue:)`): every block run on that queue shares this
    /// instance, whichever thread runs it, and notifications registered on it
    /// are delivered there by themselves. Call it from a block on `queue`.
    /// With `nil`, the vault is confined to the calling thread.
    public convenience init(configuration: Configuration, queue: DispatchQueue?) throws {
        guard let queue else {
            try self.init(configuration: configuration, isolation: nil)
            return
        }
        dispatchPrecondition(condition: .onQueue(queue))
        VaultSession.confine(to: queue)
        if let shared = VaultSession.cached(for: configuration) {
            self.init(sharing: shared)
        } else {
            let session: VaultSession
            do {
                session = try VaultSession(configuration: configuration, queue: queue)
            } catch {
                throw Vault.Error.wrapping(error)
            }
            self.init(sharing: session)
            do {
                try finishOpening()
            } catch {
                throw Vault.Error.wrapping(error)
            }
        }
        try VaultSyncActivation.activate(self)
    }

    // The session's state is read and changed through `session` (see
    // VaultSession and VaultSession+State.swift); these are Realm's API over it.
    /// The file path, or the in-memory name.
    public var path: String { session.path }
    /// Whether this is a frozen vault (see ``freeze()``): it reads one version
    /// forever, from any thread, and refuses writes and observation.
    public var isFrozen: Bool { session.isFrozen }
    /// The commit this vault reads: VaultKit's version number, incremented by
    /// every write transaction that changes something (see Vault+Versions).
    public var commitSequence: UInt64 { session.version.commitSequence }
    /// Whether the vault advances to the latest version when its notifications
    /// are delivered (Realm's `autorefresh`, default `true`). A main-thread or
    /// queue-confined vault with observers advances by itself after every commit;
    /// with `autorefresh` off its vault observers hear `.refreshRequired` instead,
    /// and it stays at its version until ``refresh()``.
    public var autorefresh: Bool {
        get { session.version.autorefresh }
        set { session.version.autorefresh = newValue }
    }
}

extension Vault: Equatable {
    /// Two handles are equal when they are the same vault instance: the same
    /// file, opened on the same thread or queue (they share one session), as
    /// Realm's instances compare.
    public static func == (lhs: Vault, rhs: Vault) -> Bool { lhs.session === rhs.session }
}
