import Secrets
import SystemCrypto

/// Gatehouse as a WebAuthn relying party: its id (a host name, which credentials are scoped to)
/// and the origins its pages are served from. Verifies the two ceremonies' answers (WebAuthn
/// Level 3 §7.1 and §7.2); it keeps nothing — challenges and credentials are the caller's.
public struct RelyingParty: Sendable, Equatable {
    /// The RP id: a registrable host name, never an IP address or a port.
    public var id: String
    /// Origins (`scheme://host[:port]`) a ceremony may have run in.
    public var origins: Set<String>

    public init(id: String, origins: Set<String>) { (self.id, self.origins) = (id, origins) }

    var idHash: [UInt8] {
        get throws(WebAuthnError) { try Self.sha256(Array(id.utf8)) }
    }

    /// SHA-256 through SystemCrypto, its failure as this module's error.
    static func sha256(_ bytes: [UInt8]) throws(WebAuthnError) -> [UInt8] {
        do { return try SHA256.digest(bytes) } catch { throw .digestFailed }
    }

    /// A new credential, checked: what the caller stores.
    public struct NewCredential: Sendable, Equatable {
        public var id: [UInt8]
        public var publicKeyCOSE: [UInt8]
        public var signCount: UInt32
        public var flags: AuthenticatorData.Flags
        public var aaguid: [UInt8]
        public var format: String
    }

    /// §7.1: the answer to `create()` for `challenge`; `userVerification` when the options required it.
    public func verifyRegistration(
        clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8], userVerification: Bool
    ) throws(WebAuthnError) -> NewCredential {
        try ClientData(json: clientDataJSON).check(type: ClientData.create, challenge: challenge, origins: origins)
        let attestation = try AttestationObject(attestationObject)
        let data = attestation.authenticatorData
        try checkFlagsAndRP(data, userVerification: userVerification)
        guard let credential = data.attestedCredential else { throw .malformed("no credential was announced") }
        try attestation.verifyStatement(clientDataHash: try Self.sha256(clientDataJSON))
        return NewCredential(
            id: credential.credentialID, publicKeyCOSE: credential.publicKeyCOSE, signCount: data.signCount,
            flags: data.flags, aaguid: credential.aaguid, format: attestation.format)
    }

    /// What a checked assertion tells the caller to store.
    public struct Assertion: Sendable, Equatable {
        public var signCount: UInt32
        public var flags: AuthenticatorData.Flags
    }

    /// §7.2: the answer to `get()` for `challenge`, by the stored credential (`publicKeyCOSE`,
    /// `storedSignCount`). Once the stored counter is non-zero, one that did not move forward is
    /// refused — 0 too: an authenticator that keeps no counter sends 0 from its first use, so a 0
    /// after a moving counter is a clone's (§6.1.1).
    public func verifyAssertion(
        clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], challenge: [UInt8],
        publicKeyCOSE: [UInt8], storedSignCount: UInt32, userVerification: Bool
    ) throws(WebAuthnError) -> Assertion {
        try ClientData(json: clientDataJSON).check(type: ClientData.get, challenge: challenge, origins: origins)
        let data = try AuthenticatorData(authenticatorData)
        try checkFlagsAndRP(data, userVerification: userVerification)
        let key = try COSEKey(bytes: publicKeyCOSE)
        guard key.isValidSignature(signature, for: authenticatorData + (try Self.sha256(clientDataJSON))) else {
            throw .badSignature
        }
        if storedSignCount != 0, data.signCount <= storedSignCount {
            throw .signCountRegressed(stored: storedSignCount, received: data.signCount)
        }
        return Assertion(signCount: data.signCount, flags: data.flags)
    }

    /// The RP id hash, UP, UV when asked for, and BS only with BE (§6.1: a credential that is not
    /// backup-eligible cannot be backed up).
    private func checkFlagsAndRP(_ data: AuthenticatorData, userVerification: Bool) throws(WebAuthnError) {
        guard KeyedHash.constantTimeEquals(data.rpIDHash, try idHash) else { throw .rpIDMismatch }
        guard data.flags.userPresent else { throw .userNotPresent }
        if userVerification, !data.flags.userVerified { throw .userNotVerified }
        guard data.flags.backupEligible || !data.flags.backedUp else {
            throw .malformed("backed up without being backup-eligible")
        }
    }
}
