/// The authenticator's own record of a ceremony (WebAuthn §6.1): which relying party it signed
/// for (`rpIDHash`), what it checked (`flags`), its counter, and — at registration — the new
/// credential. Parsed strictly: every byte must be accounted for.
public struct AuthenticatorData: Sendable, Equatable {
    public var rpIDHash: [UInt8]
    public var flags: Flags
    public var signCount: UInt32
    /// Present when `flags.attestedCredentialData` is set (registration).
    public var attestedCredential: AttestedCredential?
    /// The extension outputs, when `flags.extensionData` is set.
    public var extensions: CBOR?
    /// The bytes as signed.
    public var raw: [UInt8]

    /// The flags byte (§6.1, bits 0, 2, 3, 4, 6, 7).
    public struct Flags: Sendable, Equatable {
        public var rawValue: UInt8
        /// UP: a person was present (touched, clicked).
        public var userPresent: Bool { rawValue & 0x01 != 0 }
        /// UV: the authenticator verified the person (PIN, biometrics).
        public var userVerified: Bool { rawValue & 0x04 != 0 }
        /// BE: the credential may be backed up (synced passkeys).
        public var backupEligible: Bool { rawValue & 0x08 != 0 }
        /// BS: the credential is backed up now.
        public var backedUp: Bool { rawValue & 0x10 != 0 }
        /// AT: attested credential data follows the counter.
        public var attestedCredentialData: Bool { rawValue & 0x40 != 0 }
        /// ED: extension outputs end the data.
        public var extensionData: Bool { rawValue & 0x80 != 0 }
    }

    /// A credential as registration announces it (§6.5.2).
    public struct AttestedCredential: Sendable, Equatable {
        public var aaguid: [UInt8]
        public var credentialID: [UInt8]
        /// The COSE_Key exactly as the authenticator encoded it: what is stored and read back.
        public var publicKeyCOSE: [UInt8]
        public var publicKey: COSEKey
    }

    /// Credential ids longer than this are refused (§5.8.3: at most 1023 bytes).
    public static let maxCredentialIDLength = 1023

    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .malformed("authenticator data is shorter than 37 bytes") }
        raw = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var position = 37
        if flags.attestedCredentialData {
            guard bytes.count >= position + 18 else { throw .malformed("attested credential data is truncated") }
            let aaguid = Array(bytes[position..<position + 16])
            let length = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard length > 0, length <= Self.maxCredentialIDLength else { throw .malformed("credential id length \(length)") }
            guard bytes.count >= position + length else { throw .malformed("credential id is truncated") }
            let credentialID = Array(bytes[position..<position + length])
            position += length
            let decoded: (key: CBOR, end: Int)
            do { decoded = try CBORDecoder.decodePrefix(bytes, from: position) } catch {
                throw .malformed("credential public key: \(error)")
            }
            let (key, end) = decoded
            let keyBytes = Array(bytes[position..<end])
            position = end
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKeyCOSE: keyBytes, publicKey: try COSEKey(key))
        }
        if flags.extensionData {
            let decoded: (value: CBOR, end: Int)
            do { decoded = try CBORDecoder.decodePrefix(bytes, from: position) } catch {
                throw .malformed("extensions: \(error)")
            }
            let value = decoded.value
            position = decoded.end
            guard case .map = value else { throw .malformed("extensions are not a map") }
            extensions = value
        }
        guard position == bytes.count else { throw .malformed("authenticator data has bytes left over") }
    }
}
