import CSodium
import Foundation

// MARK: - Who belongs to a space
//
// OVERVIEW
//
// A space's membership is data in the space's own log: signed entries that
// add and remove devices and people, change roles and rotate the space key.
// The log's total order is the server's sequence; every device applies the
// same entries in that order with the same rules and so computes the same
// membership, whatever order it received them in. The server cannot add a
// member (it holds no member's signing key) and cannot make two devices
// disagree about an entry's validity (validity depends only on the entries
// before it); it can only withhold or reorder, which every device sees alike.
//
// RULES (each judged against the state just before the entry's position)
//
//   1. The first valid entry is a genesis: its signer becomes the space's
//      first device, an owner, of a new person. Any later genesis is refused.
//   2. Every other entry is signed by a device that is a member at that point.
//   3. An owner adds any device of any person, with any role. Any other member
//      adds only devices of its own person, with a role no higher than its own.
//      A device joins with a signature of its own over the space and its keys
//      (it holds its keys). A device once seen is never added again, even
//      after its removal: a removed phone cannot come back as itself.
//   4. An owner removes any device or person. Any member removes devices of
//      its own person (the lost phone) or its own person (leaving).
//   5. Only an owner changes roles.
//   6. No entry may leave the space without an owner device.
//   7. A rotation (a new key epoch, one more than the current) is made by a
//      writer or an owner. An entry that removes anyone must rotate; if its
//      rotation is refused (another rotation came first), the removal still
//      applies and a rotation is owed: the next writer or owner rotates.
//   8. An entry is applied whole or not at all (apart from rule 7's case).
//   9. A writer or owner that holds the current epoch's key seals it to members
//      sealed none of it (a device added while another member rotated): a
//      key-share entry, of the current epoch only.
//
// The verdicts are deterministic functions of the log: no clock, no
// randomness, no device's local state.

/// A member's permissions in a space (Realm's read and read-write permissions, and the
/// owner who manages members).
public enum SyncRole: UInt8, Comparable, Sendable, CustomStringConvertible {
    /// Reads; its change sets are refused by every device.
    case reader = 1
    /// Reads and writes.
    case writer = 2
    /// Reads, writes, adds and removes members, changes roles.
    case owner = 3

    public static func < (lhs: SyncRole, rhs: SyncRole) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .reader: "reader"
        case .writer: "writer"
        case .owner: "owner"
        }
    }
}

/// A person: the devices added for one human. Named by the hash of their first device's signing key.
public struct SyncPersonID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// A person id's length.
    static let byteCount = 16
    /// The id's 16 bytes.
    public let bytes: [UInt8]

    /// A person id as stored (``byteCount`` bytes, checked by the reader).
    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The person whose first device has `keys`: BLAKE2b-128 of "VaultKit person v1" and its signing key.
    init(firstDevice keys: DevicePublicKeys) {
        var digest = [UInt8](repeating: 0, count: 16)
        let message = Array("VaultKit person v1".utf8) + keys.signing
        _ = sodium_init()
        _ = crypto_generichash(&digest, digest.count, message, UInt64(message.count), nil, 0)
        bytes = digest
    }

    public static func < (lhs: SyncPersonID, rhs: SyncPersonID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public var description: String { bytes.prefix(4).map { String(format: "%02x", $0) }.joined() }
}

/// One change a membership entry makes.
enum MembershipOperation: Hashable, Sendable {
    /// Creates the space: the signer (with these keys) is its first device, an owner.
    case genesis(DevicePublicKeys)
    /// Adds a device of `person` with `role`; `joinSignature` is the device's own
    /// signature over the space and its keys (``MembershipState/joinMessage(space:keys:)``).
    case addDevice(keys: DevicePublicKeys, person: SyncPersonID, role: SyncRole, joinSignature: [UInt8])
    /// Removes a device.
    case removeDevice(SyncDeviceID)
    /// Removes every device of a person.
    case removePerson(SyncPersonID)
    /// Gives every device of a person a role.
    case setRole(SyncPersonID, SyncRole)
    /// Starts key epoch `epoch` (the current one plus one).
    case rotate(epoch: UInt32)
    /// Seals the current epoch's key (`epoch`) to members that were sealed none: a device
    /// added while another member rotated, whose rotation could not include it.
    case shareKey(epoch: UInt32)

    var isRemoval: Bool {
        switch self {
        case .removeDevice, .removePerson: true
        default: false
        }
    }
}

/// A signed membership entry at its place in the log.
struct MembershipEntry: Hashable, Sendable {
    /// The device that signed it.
    let signer: SyncDeviceID
    /// What it changes, in order.
    let operations: [MembershipOperation]
}

/// Why an entry changed nothing.
enum MembershipRefusal: Error, Hashable, Sendable {
    case noGenesisYet
    case secondGenesis
    case genesisSignedByAnother
    case signerNotMember(SyncDeviceID)
    case notPermitted(String)
    case deviceSeenBefore(SyncDeviceID)
    case badJoinSignature(SyncDeviceID)
    case unknownDevice(SyncDeviceID)
    case unknownPerson(SyncPersonID)
    case noOwnerLeft
    case wrongEpoch(expected: UInt32, got: UInt32)
    case empty
}

/// A device of the space, and when it belonged.
struct MemberDevice: Hashable, Sendable {
    let keys: DevicePublicKeys
    var person: SyncPersonID
    /// Its role now.
    private(set) var role: SyncRole
    /// The log position of the entry that added it.
    let added: UInt64
    /// The log position of the entry that removed it.
    var removed: UInt64?
    /// Its earlier roles, each with the position of the entry that ended it, oldest first.
    private(set) var earlierRoles: [RoleChange] = []

    /// A role, and the position of the entry that changed it.
    struct RoleChange: Hashable, Sendable {
        let until: UInt64
        let role: SyncRole
    }

    init(keys: DevicePublicKeys, person: SyncPersonID, role: SyncRole, added: UInt64) {
        self.keys = keys
        self.person = person
        self.role = role
        self.added = added
    }

    /// Gives the device `role` from the entry at `position` on.
    mutating func change(to role: SyncRole, at position: UInt64) {
        earlierRoles.append(RoleChange(until: position, role: self.role))
        self.role = role
    }

    /// Its role for an entry at `position`: the role it had then, not the one it has now.
    func role(at position: UInt64) -> SyncRole {
        earlierRoles.first { $0.until > position }?.role ?? role
    }
}

/// The membership the log's entries make, entry by entry (see the rules above).
struct MembershipState: Sendable {
    /// The space (a join signature covers it: one made for another space is refused).
    let space: SyncSpaceID
    /// Every device ever added, removed ones included.
    private(set) var devices: [SyncDeviceID: MemberDevice] = [:]
    /// The current key epoch (0 before any rotation).
    private(set) var epoch: UInt32 = 0
    /// A removal applied without its rotation: the next writer or owner must rotate.
    private(set) var rotationOwed = false
    /// The position of the genesis entry, once there is one.
    private(set) var genesis: UInt64?
    /// The position of the last entry applied or refused.
    private(set) var position: UInt64 = 0
    /// Whether join signatures are checked: off while replaying entries this device stored
    /// after it had checked them (the verdicts are the same; a replay costs no signatures).
    private var checksJoinSignatures = true

    init(space: SyncSpaceID) { self.space = space }

    /// What a joining device signs: the space and its keys.
    static func joinMessage(space: SyncSpaceID, keys: DevicePublicKeys) -> [UInt8] {
        space.bytes + keys.signing + keys.box
    }

    /// The devices that are members now.
    var currentDevices: [SyncDeviceID: MemberDevice] { devices.filter { $0.value.removed == nil } }

    /// The role of `device` for an entry at `position` (a data change set's check): the
    /// role it had at that point of the log, nil unless it was added before and not removed
    /// before it. The same whenever it is asked, so an entry judged late (out of the
    /// quarantine) gets the verdict it would have had on time.
    func role(of device: SyncDeviceID, at position: UInt64) -> SyncRole? {
        guard let member = devices[device], member.added < position else { return nil }
        if let removed = member.removed, removed < position { return nil }
        return member.role(at: position)
    }

    /// Applies `entry` at `position` (after every earlier position); returns
    /// why it was refused, nil when it applied. A refused entry changes nothing.
    @discardableResult
    mutating func apply(_ entry: MembershipEntry, at position: UInt64) -> MembershipRefusal? {
        apply(entry, at: position, replaying: false)
    }

    /// ``apply(_:at:)``; `replaying` an entry this device stored after applying it skips the
    /// join signatures it checked then.
    @discardableResult
    mutating func apply(_ entry: MembershipEntry, at position: UInt64, replaying: Bool) -> MembershipRefusal? {
        checksJoinSignatures = !replaying
        defer { checksJoinSignatures = true }
        self.position = max(self.position, position)
        var next = self
        do throws(MembershipRefusal) {
            try next.check(entry, at: position)
            self = next
            return nil
        } catch {
            return error
        }
    }

    /// Applies the entry to this copy, throwing at the first rule it breaks.
    private mutating func check(_ entry: MembershipEntry, at position: UInt64) throws(MembershipRefusal) {
        guard let first = entry.operations.first else { throw MembershipRefusal.empty }
        if case .genesis(let keys) = first {
            guard genesis == nil else { throw MembershipRefusal.secondGenesis }
            guard entry.operations.count == 1 else { throw MembershipRefusal.notPermitted("a genesis entry holds nothing else") }
            guard keys.deviceID == entry.signer else { throw MembershipRefusal.genesisSignedByAnother }
            devices[entry.signer] = MemberDevice(keys: keys, person: SyncPersonID(firstDevice: keys), role: .owner, added: position)
            genesis = position
            return
        }
        guard genesis != nil else { throw MembershipRefusal.noGenesisYet }
        guard devices[entry.signer]?.removed == nil, devices[entry.signer] != nil else { throw MembershipRefusal.signerNotMember(entry.signer) }
        let removes = entry.operations.contains(where: \.isRemoval)
        var rotated = false
        for operation in entry.operations {
            guard let current = devices[entry.signer] else { throw MembershipRefusal.signerNotMember(entry.signer) }
            // A signer that removed itself earlier in the entry (leaving) does nothing more.
            let signerLeft = current.removed != nil
            if case .rotate(let newEpoch) = operation {
                do throws(MembershipRefusal) {
                    // Whoever rotates knows the next key: never a device on its way out.
                    guard !signerLeft else { throw MembershipRefusal.notPermitted("a device that leaves does not choose the next key") }
                    guard current.role >= .writer else { throw MembershipRefusal.notPermitted("a reader does not rotate the key") }
                    guard newEpoch == epoch &+ 1 else { throw MembershipRefusal.wrongEpoch(expected: epoch &+ 1, got: newEpoch) }
                    epoch = newEpoch
                    rotated = true
                } catch {
                    // Rule 7: a removal keeps its effect when its rotation cannot be made.
                    guard removes else { throw error }
                }
                continue
            }
            guard !signerLeft else { throw MembershipRefusal.signerNotMember(entry.signer) }
            if rotated && operation.isRemoval {
                throw MembershipRefusal.notPermitted("an entry's removals come before its rotation")
            }
            switch operation {
            case .genesis:
                throw MembershipRefusal.secondGenesis
            case .addDevice(let keys, let person, let role, let joinSignature):
                try add(keys: keys, person: person, role: role, joinSignature: joinSignature, by: current, at: position)
            case .removeDevice(let device):
                guard let target = devices[device], target.removed == nil else { throw MembershipRefusal.unknownDevice(device) }
                guard current.role == .owner || target.person == current.person else {
                    throw MembershipRefusal.notPermitted("only an owner removes another person's device")
                }
                devices[device]?.removed = position
            case .removePerson(let person):
                let targets = currentDevices.filter { $0.value.person == person }.map(\.key)
                guard !targets.isEmpty else { throw MembershipRefusal.unknownPerson(person) }
                guard current.role == .owner || person == current.person else {
                    throw MembershipRefusal.notPermitted("only an owner removes another person")
                }
                for device in targets { devices[device]?.removed = position }
            case .setRole(let person, let role):
                guard current.role == .owner else { throw MembershipRefusal.notPermitted("only an owner changes roles") }
                let targets = currentDevices.filter { $0.value.person == person }.map(\.key)
                guard !targets.isEmpty else { throw MembershipRefusal.unknownPerson(person) }
                for device in targets { devices[device]?.change(to: role, at: position) }
            case .rotate:
                break
            case .shareKey(let shared):
                guard current.role >= .writer else { throw MembershipRefusal.notPermitted("a reader does not share the key") }
                guard shared == epoch else { throw MembershipRefusal.wrongEpoch(expected: epoch, got: shared) }
            }
        }
        guard currentDevices.values.contains(where: { $0.role == .owner }) else { throw MembershipRefusal.noOwnerLeft }
        if rotated {
            rotationOwed = false
        } else if removes {
            rotationOwed = true
        }
    }

    private mutating func add(keys: DevicePublicKeys, person: SyncPersonID, role: SyncRole, joinSignature: [UInt8],
                              by adder: MemberDevice, at position: UInt64) throws(MembershipRefusal) {
        let device = keys.deviceID
        guard devices[device] == nil, !devices.values.contains(where: { $0.keys.signing == keys.signing || $0.keys.box == keys.box }) else {
            throw MembershipRefusal.deviceSeenBefore(device)
        }
        guard !checksJoinSignatures || keys.verify(joinSignature, of: Self.joinMessage(space: space, keys: keys), context: .joinRequest) else {
            throw MembershipRefusal.badJoinSignature(device)
        }
        if adder.role != .owner {
            guard person == adder.person else { throw MembershipRefusal.notPermitted("only an owner adds another person's device") }
            guard role <= adder.role else { throw MembershipRefusal.notPermitted("a member adds devices with at most its own role") }
        }
        // A new person is named by their first device; a known person's devices share their id.
        let knownPerson = devices.values.contains { $0.person == person }
        guard knownPerson || person == SyncPersonID(firstDevice: keys) else {
            throw MembershipRefusal.unknownPerson(person)
        }
        devices[device] = MemberDevice(keys: keys, person: person, role: role, added: position)
    }
}
