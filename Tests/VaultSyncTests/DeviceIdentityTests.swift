import CSodium
import Foundation
import Testing
import VaultCore
@testable import VaultSync
import VaultTestSupport

@Suite("Device identities: signing and sealed-box keys from a key store")
struct DeviceIdentityTests {
    @Test("an identity comes back from its key store with the same public keys, device id and fingerprint; another key gives other ones")
    func derivedFromTheKeyStore() throws {
        let directory = try TemporaryDirectory("device-identity")
        let phoneStore = try FileKeyStore(directory: directory.file("phone"))
        let phone = try DeviceIdentity.create(in: phoneStore, identifier: "sync-device")
        let again = try DeviceIdentity(keyStore: try FileKeyStore(directory: directory.file("phone")), identifier: "sync-device")
        #expect(again.publicKeys == phone.publicKeys)
        #expect(again.publicKeys.deviceID == phone.publicKeys.deviceID)
        #expect(again.publicKeys.fingerprint == phone.publicKeys.fingerprint)

        let laptop = try DeviceIdentity.create(in: try FileKeyStore(directory: directory.file("laptop")), identifier: "sync-device")
        #expect(laptop.publicKeys.signing != phone.publicKeys.signing)
        #expect(laptop.publicKeys.box != phone.publicKeys.box)
        #expect(laptop.publicKeys.deviceID != phone.publicKeys.deviceID)
        #expect(laptop.publicKeys.fingerprint != phone.publicKeys.fingerprint)

        // The fingerprint is six groups of five digits; the description shows it and no secret.
        let groups = phone.publicKeys.fingerprint.split(separator: " ")
        #expect(groups.count == 6 && groups.allSatisfy { $0.count == 5 && $0.allSatisfy(\.isNumber) })
        #expect(phone.description.contains(phone.publicKeys.fingerprint) && phone.description.contains("redacted"))
        // A second identity under the same name is refused: the stored key is never replaced.
        #expect(throws: KeyStoreError.self) { try DeviceIdentity.create(in: phoneStore, identifier: "sync-device") }
        #expect(throws: KeyStoreError.self) { try DeviceIdentity(keyStore: phoneStore, identifier: "missing") }
    }

    @Test("the keys are libsodium's: a signature verifies with libsodium itself over the context, a NUL and the message")
    func keysAreLibsodiums() throws {
        let identity = try DeviceIdentity(masterKey: try MasterKey.generate())
        let message = Array("a change set's envelope".utf8)
        let signature = identity.sign(message, context: .envelope)
        // Checked with libsodium directly (the signed bytes are the context, a NUL, then the message).
        let signed = Array("VaultKit envelope v2".utf8) + [0] + message
        #expect(crypto_sign_ed25519_verify_detached(signature, signed, UInt64(signed.count), identity.publicKeys.signing) == 0)
        #expect(identity.publicKeys.signing.count == 32 && identity.publicKeys.box.count == 32 && signature.count == 64)
        #expect(identity.publicKeys.signing != identity.publicKeys.box)
    }

    @Test("a signature verifies for its message, its context and its signer only")
    func signaturesBindMessageContextAndSigner() throws {
        let ana = try DeviceIdentity(masterKey: try MasterKey.generate())
        let bea = try DeviceIdentity(masterKey: try MasterKey.generate())
        let message = Array("space 7, device 3, sequence 12".utf8)
        let signature = ana.sign(message, context: .envelope)
        #expect(ana.publicKeys.verify(signature, of: message, context: .envelope))
        // Another signer, another context, a changed message or signature: refused.
        #expect(!bea.publicKeys.verify(signature, of: message, context: .envelope))
        #expect(!ana.publicKeys.verify(signature, of: message, context: .joinRequest))
        var changed = message
        changed[changed.count - 1] ^= 1
        #expect(!ana.publicKeys.verify(signature, of: changed, context: .envelope))
        var forged = signature
        forged[10] ^= 0x40
        #expect(!ana.publicKeys.verify(forged, of: message, context: .envelope))
        #expect(!ana.publicKeys.verify(Array(signature.dropLast()), of: message, context: .envelope))
        #expect(!ana.publicKeys.verify([], of: message, context: .envelope))
    }

    @Test("a sealed box opens for its recipient only, and not once altered")
    func sealedBoxesOpenForTheirRecipient() throws {
        let ana = try DeviceIdentity(masterKey: try MasterKey.generate())
        let bea = try DeviceIdentity(masterKey: try MasterKey.generate())
        let spaceKey = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let sealed = try bea.publicKeys.seal(spaceKey)
        #expect(sealed.count == spaceKey.count + DevicePublicKeys.sealOverhead)
        #expect(bea.open(sealedBox: sealed) == spaceKey)
        #expect(ana.open(sealedBox: sealed) == nil)
        var altered = sealed
        altered[altered.count - 1] ^= 1
        #expect(bea.open(sealedBox: altered) == nil)
        #expect(bea.open(sealedBox: Array(sealed.prefix(DevicePublicKeys.sealOverhead - 1))) == nil)
        // Two seals of one key differ (an ephemeral key each), and both open.
        let again = try bea.publicKeys.seal(spaceKey)
        #expect(again != sealed && bea.open(sealedBox: again) == spaceKey)
    }

    @Test("public keys received from elsewhere must have their lengths")
    func receivedKeysAreChecked() throws {
        let identity = try DeviceIdentity(masterKey: try MasterKey.generate())
        let keys = try DevicePublicKeys(signing: identity.publicKeys.signing, box: identity.publicKeys.box)
        #expect(keys == identity.publicKeys)
        #expect(throws: SyncError.self) { try DevicePublicKeys(signing: Array(identity.publicKeys.signing.dropLast()), box: identity.publicKeys.box) }
        #expect(throws: SyncError.self) { try DevicePublicKeys(signing: identity.publicKeys.signing, box: []) }
    }
}
