// MARK: - The sync protocol between a device and a sync server
//
// OVERVIEW
//
// A device keeps one WebSocket open to a sync server (`GET /v1/sync`, the
// device token in `Authorization: Bearer …`). Everything on it is a binary
// message of this file's format. The server relays sealed change sets it
// cannot open: it reads only each envelope's clear header (space, author
// device, author sequence, key id — see ChangeSetSealer), stores the envelope
// under the next number of the space's log (the server sequence), and hands
// the log out in order.
//
// A SESSION
//
//   device                                  server
//   hello(version, cursor)          ──▶
//                                   ◀──     welcome(version, head, bytes)
//   upload(request, [envelope])     ──▶     stored once per (device, sequence)
//                                   ◀──     uploaded(request, [receipt])
//   download(request, after, limit) ──▶
//                                   ◀──     changeSets(request, [(seq, envelope)], head, remaining bytes)
//   register(keys, signature)       ──▶     (protocol 2; no reply: a refusal closes with 4403)
//   acknowledge(through)            ──▶     (no reply)
//                                   ◀──     head(n)            pushed whenever the space's log grows
//
// Requests carry a number the reply repeats, so a device may have several in
// flight; replies to one connection come in request order. Nothing depends on
// a connection surviving: an upload whose reply was lost is sent again on the
// next connection and stored once (deduplicated by author and sequence); a
// download names the position it continues from, which the device stores
// with the change sets it applied. So a connection may drop at any message
// and the next one repeats work without losing or doubling any.
//
// The server numbers a space's log without gaps and in commit order (a row
// lock on the space serialises appends), so "everything after n" never skips
// a change set that commits later with a smaller number.
//
// FORMAT
//
// A message is one WebSocket binary frame: a tag byte, then its fields as
// LEB128 varints (numbers), length-prefixed bytes (envelopes, text), and
// counted lists. A message with bytes after its last field, an unknown tag,
// a count larger than the bytes left, or text that is not UTF-8 is malformed:
// the server closes with 4400 and changes nothing. Versions: `hello` names
// the newest protocol the device speaks; the server answers with the one it
// will use, or closes with 4426 when it speaks none of them.
//
// SIGNED SPACES (protocol 2)
//
// A device with an identity registers its public keys after the welcome,
// signed by its signing key (the server learns public keys, never secrets).
// The server binds the device id the keys give to the token's device, and
// from then on stores a signed (version-2) envelope only when it names the
// registered device and its Ed25519 signature verifies: a stolen token alone
// cannot post as another device, nor post anything its device did not sign.
// A space is marked signed by its first signed envelope; after that the
// server refuses unsigned (version-1) uploads to it with 4403.
//
// CLOSE CODES
//
// Besides WebSocket's own (1002 for an unmasked client frame, 1009 for a
// message over the size limit), the server closes with one of ``SyncCloseCode``:
// 4400 malformed message or a position past the largest, 4401 token unknown or
// revoked, 4403 a change set for another space or of a device another token
// uploads for, 4409 an author sequence the log holds with other bytes, 4413 a
// change set over the size limit, 4426 protocol version, 4429 rate, queue or
// connection limit (or the server is busy), 4500 the server could not complete
// the request (its store is unavailable), 4507 the space's storage quota. A
// device treats 4401, 4403, 4409, 4413 and 4426 as final (the user must act)
// and retries the others with backoff.

/// One message of the sync protocol (see the essay at the top of this file).
public enum SyncWireMessage: Sendable, Equatable {
    /// Device → server, first: the newest protocol version the device speaks,
    /// and how far it holds the space's log.
    case hello(protocolVersion: UInt32, cursor: UInt64)
    /// Device → server: sealed change sets to store, in order.
    case upload(request: UInt64, envelopes: [[UInt8]])
    /// Device → server: up to `limit` change sets after server sequence `after`.
    case download(request: UInt64, after: UInt64, limit: UInt32)
    /// Device → server: the device holds the log through `through` durably.
    case acknowledge(through: UInt64)
    /// Device → server (protocol 2), after the welcome: the public keys of the device this
    /// token uploads for, signed by that device (``SignatureContext/registration``). From
    /// then on the server stores a signed envelope of this connection only when it names
    /// that device and its signature verifies with that key.
    case register(keys: DevicePublicKeys, signature: [UInt8])
    /// Server → device, the reply to `hello`: the version in use, the space's
    /// last server sequence, and the bytes its log holds in all.
    case welcome(protocolVersion: UInt32, head: UInt64, totalBytes: UInt64)
    /// Server → device: one receipt per uploaded envelope, in order.
    case uploaded(request: UInt64, receipts: [UploadReceipt])
    /// Server → device, the reply to `download`: change sets in server order,
    /// the space's head, and how many envelope bytes follow the last one sent.
    case changeSets(request: UInt64, items: [DeliveredChangeSet], head: UInt64, remainingBytes: UInt64)
    /// Server → device, pushed: the space's log now ends at `head`.
    case head(UInt64)

    /// The protocol version this build speaks (2: devices register their public keys).
    public static let protocolVersion: UInt32 = 2

    /// What a device signs to register `keys` for `space` with a server.
    public static func registrationMessage(space: SyncSpaceID, keys: DevicePublicKeys) -> [UInt8] {
        space.bytes + keys.signing + keys.box
    }

    private enum Tag: UInt8 {
        case hello = 1, upload, download, acknowledge, register
        case welcome = 64, uploaded, changeSets, head
    }

    /// The message's bytes.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .hello(let version, let cursor):
            writer.u8(Tag.hello.rawValue)
            writer.varint(UInt64(version))
            writer.varint(cursor)
        case .upload(let request, let envelopes):
            writer.u8(Tag.upload.rawValue)
            writer.varint(request)
            writer.varint(UInt64(envelopes.count))
            for envelope in envelopes { writer.bytesField(envelope) }
        case .download(let request, let after, let limit):
            writer.u8(Tag.download.rawValue)
            writer.varint(request)
            writer.varint(after)
            writer.varint(UInt64(limit))
        case .acknowledge(let through):
            writer.u8(Tag.acknowledge.rawValue)
            writer.varint(through)
        case .register(let keys, let signature):
            writer.u8(Tag.register.rawValue)
            writer.raw(keys.signing + keys.box + signature)
        case .welcome(let version, let head, let totalBytes):
            writer.u8(Tag.welcome.rawValue)
            writer.varint(UInt64(version))
            writer.varint(head)
            writer.varint(totalBytes)
        case .uploaded(let request, let receipts):
            writer.u8(Tag.uploaded.rawValue)
            writer.varint(request)
            writer.varint(UInt64(receipts.count))
            for receipt in receipts {
                writer.u64(receipt.device.rawValue)
                writer.varint(receipt.sequence)
                writer.varint(receipt.serverSequence)
            }
        case .changeSets(let request, let items, let head, let remainingBytes):
            writer.u8(Tag.changeSets.rawValue)
            writer.varint(request)
            writer.varint(UInt64(items.count))
            for item in items {
                writer.varint(item.serverSequence)
                writer.bytesField(item.changeSet.envelope)
            }
            writer.varint(head)
            writer.varint(remainingBytes)
        case .head(let head):
            writer.u8(Tag.head.rawValue)
            writer.varint(head)
        }
        return writer.bytes
    }

    /// The message `bytes` hold, or ``SyncError/malformedChangeSet(_:)`` naming what is wrong.
    public init(decoding bytes: [UInt8]) throws(SyncError) {
        var reader = ByteReader(bytes)
        guard let tag = Tag(rawValue: try reader.u8()) else { throw SyncError.malformedChangeSet("unknown sync message type \(bytes[0])") }
        switch tag {
        case .hello:
            self = .hello(protocolVersion: try reader.u32Varint(), cursor: try reader.varint())
        case .upload:
            let request = try reader.varint()
            var envelopes: [[UInt8]] = []
            for _ in 0..<(try reader.count()) { envelopes.append(try reader.raw(try reader.count())) }
            self = .upload(request: request, envelopes: envelopes)
        case .download:
            self = .download(request: try reader.varint(), after: try reader.varint(), limit: try reader.u32Varint())
        case .acknowledge:
            self = .acknowledge(through: try reader.varint())
        case .register:
            let signing = try reader.raw(DevicePublicKeys.signingKeyByteCount)
            let keys = try DevicePublicKeys(signing: signing, box: try reader.raw(DevicePublicKeys.boxKeyByteCount))
            self = .register(keys: keys, signature: try reader.raw(DevicePublicKeys.signatureByteCount))
        case .welcome:
            self = .welcome(protocolVersion: try reader.u32Varint(), head: try reader.varint(), totalBytes: try reader.varint())
        case .uploaded:
            let request = try reader.varint()
            var receipts: [UploadReceipt] = []
            for _ in 0..<(try reader.count(minimumSize: 10)) {
                let device = SyncDeviceID(rawValue: try reader.u64())
                receipts.append(UploadReceipt(device: device, sequence: try reader.varint(), serverSequence: try reader.varint()))
            }
            self = .uploaded(request: request, receipts: receipts)
        case .changeSets:
            let request = try reader.varint()
            var items: [DeliveredChangeSet] = []
            for _ in 0..<(try reader.count(minimumSize: 2)) {
                let serverSequence = try reader.varint()
                let changeSet = try SealedChangeSet(envelope: try reader.raw(try reader.count()))
                items.append(DeliveredChangeSet(serverSequence: serverSequence, changeSet: changeSet))
            }
            self = .changeSets(request: request, items: items, head: try reader.varint(), remainingBytes: try reader.varint())
        case .head:
            self = .head(try reader.varint())
        }
        guard reader.remaining == 0 else { throw reader.fail("bytes after the sync message") }
    }
}

/// The codes a sync server closes a device's WebSocket with (see SyncWireMessage.swift).
public enum SyncCloseCode: UInt16, Sendable, CaseIterable {
    /// A message that is not one of the protocol's.
    case malformedMessage = 4400
    /// The device token is unknown or revoked.
    case unauthorized = 4401
    /// A change set sealed for another space than the token's.
    case forbidden = 4403
    /// A message larger than the server accepts.
    case messageTooLarge = 4413
    /// No protocol version in common.
    case unsupportedVersion = 4426
    /// An upload names an author sequence the log already holds with other bytes:
    /// the stored change set keeps its place and the upload is refused whole.
    case conflictingChangeSet = 4409
    /// Too many messages or connections for this device, or the server is busy.
    case rateLimited = 4429
    /// The server could not complete a request (its store is unavailable).
    case serverError = 4500
    /// The space's log holds as many bytes as its server allows (the operator's quota).
    case quotaExceeded = 4507

    /// Whether a device should stop and report instead of reconnecting.
    public var isFinal: Bool {
        self == .unauthorized || self == .forbidden || self == .unsupportedVersion || self == .conflictingChangeSet || self == .messageTooLarge
    }
}

extension ByteWriter {
    mutating func bytesField(_ data: [UInt8]) {
        varint(UInt64(data.count))
        raw(data)
    }
}

extension ByteReader {
    mutating func u32Varint() throws(SyncError) -> UInt32 {
        let value = try varint()
        guard value <= UInt64(UInt32.max) else { throw fail("a 32-bit field holds \(value)") }
        return UInt32(value)
    }
}
