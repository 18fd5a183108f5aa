/// Why a device refused an entry of its space's log: the entry authenticated
/// (or could not be judged) but the space's trust rules do not let it count.
/// Nothing of a refused entry is applied, on any device: every device judges
/// an entry by the same bytes and the membership at the same place in the log.
public enum SyncRefusal: Sendable, Hashable, CustomStringConvertible {
    /// An unsigned (version-1) envelope in a space that has members.
    case unsigned
    /// The signer was not a member of the space at the entry's place in the log.
    case unknownSigner
    /// The signer had been removed from the space before the entry's place in the log.
    case removedSigner
    /// The signature does not verify with the signer's key: the entry was forged or altered.
    case badSignature
    /// A change set from a device whose role is reader.
    case readerWrite
    /// A membership entry the rules refuse (MembershipState's rules; the reason names which).
    case invalidMembershipEntry(String)

    /// A short stable spelling, stored with the refused entry.
    var code: String {
        switch self {
        case .unsigned: "unsigned"
        case .unknownSigner: "unknownSigner"
        case .removedSigner: "removedSigner"
        case .badSignature: "badSignature"
        case .readerWrite: "readerWrite"
        case .invalidMembershipEntry(let reason): "membership:" + reason
        }
    }

    /// The refusal stored as `code`.
    init(code: String) {
        switch code {
        case "unsigned": self = .unsigned
        case "unknownSigner": self = .unknownSigner
        case "removedSigner": self = .removedSigner
        case "badSignature": self = .badSignature
        case "readerWrite": self = .readerWrite
        default: self = .invalidMembershipEntry(code.hasPrefix("membership:") ? String(code.dropFirst("membership:".count)) : code)
        }
    }

    public var description: String {
        switch self {
        case .unsigned: "it is not signed, and the space has members"
        case .unknownSigner: "its signer was not a member of the space at that point of the log"
        case .removedSigner: "its signer had been removed from the space"
        case .badSignature: "its signature does not verify: it was forged or altered"
        case .readerWrite: "its signer is a reader, and readers' changes are not applied"
        case .invalidMembershipEntry(let reason): "the membership rules refuse it (\(reason))"
        }
    }
}

/// An entry of the space's log this device refused (see ``SyncRefusal``): nothing
/// of it was applied, and later change sets of its device do not wait for it.
public struct RefusedChangeSet: Sendable, Hashable, CustomStringConvertible {
    /// Where the relay's log holds it.
    public var serverSequence: UInt64
    /// The device its header names.
    public var device: SyncDeviceID
    /// The sequence its header names.
    public var sequence: UInt64
    /// Why it was refused.
    public var refusal: SyncRefusal

    /// A refused entry.
    public init(serverSequence: UInt64, device: SyncDeviceID, sequence: UInt64, refusal: SyncRefusal) {
        self.serverSequence = serverSequence
        self.device = device
        self.sequence = sequence
        self.refusal = refusal
    }

    public var description: String {
        "entry \(sequence) of device \(device) at position \(serverSequence) of the server's log was refused: \(refusal); nothing of it was applied"
    }
}

extension MembershipRefusal {
    /// A person-readable reason (never a key).
    var reason: String {
        switch self {
        case .noGenesisYet: "the space has no first device yet"
        case .secondGenesis: "the space was already created"
        case .genesisSignedByAnother: "a first entry signed by another device than it names"
        case .signerNotMember(let device): "device \(device) is not a member"
        case .notPermitted(let why): why
        case .deviceSeenBefore(let device): "device \(device) was a member before and is never added again"
        case .badJoinSignature(let device): "device \(device)'s join request is not signed by its keys"
        case .unknownDevice(let device): "device \(device) is not a member"
        case .unknownPerson(let person): "person \(person) has no devices in the space"
        case .noOwnerLeft: "it would leave the space without an owner"
        case .wrongEpoch(let expected, let got): "it rotates to epoch \(got), the next is \(expected)"
        case .empty: "it changes nothing"
        }
    }
}
