/// Why a registration or an assertion was refused. `message` is safe to show the person; it names
/// what failed, never a key or a challenge.
public enum WebAuthnError: Error, Sendable, Equatable {
    /// Bytes that do not parse as what they claim to be.
    case malformed(String)
    /// A key type or algorithm other than ES256 and RS256.
    case unsupportedAlgorithm(String)
    /// An attestation format Gatehouse does not verify.
    case unsupportedAttestation(String)
    /// An attestation statement that does not check out.
    case invalidAttestation(String)
    /// clientDataJSON's `type` is not the ceremony's.
    case wrongCeremony(expected: String)
    /// The challenge signed is not the one issued (or it was already spent).
    case challengeMismatch
    /// The page that ran the ceremony is not one of the server's origins.
    case originNotAllowed(String)
    /// The ceremony ran in a cross-origin frame.
    case crossOrigin
    /// The authenticator signed for another relying party id.
    case rpIDMismatch
    case userNotPresent
    /// The relying party asked for user verification and the authenticator did not do it.
    case userNotVerified
    case badSignature
    /// The authenticator's counter went backwards: a cloned authenticator, maybe.
    case signCountRegressed(stored: UInt32, received: UInt32)
    /// libcrypto failed to hash what the ceremony signed: a fault of this server, not of the passkey.
    case digestFailed

    /// A short stable name for logs, audit rows and APIs' error codes.
    public var code: String {
        switch self {
        case .malformed: "malformed"
        case .unsupportedAlgorithm: "unsupported_algorithm"
        case .unsupportedAttestation: "unsupported_attestation"
        case .invalidAttestation: "invalid_attestation"
        case .wrongCeremony: "wrong_ceremony"
        case .challengeMismatch: "challenge_mismatch"
        case .originNotAllowed: "origin_not_allowed"
        case .crossOrigin: "cross_origin"
        case .rpIDMismatch: "rp_id_mismatch"
        case .userNotPresent: "user_not_present"
        case .userNotVerified: "user_not_verified"
        case .badSignature: "bad_signature"
        case .signCountRegressed: "sign_count_regressed"
        case .digestFailed: "digest_failed"
        }
    }

    public var message: String {
        switch self {
        case .malformed(let what): "The authenticator's answer is malformed (\(what))."
        case .unsupportedAlgorithm(let what): "This passkey's algorithm is not supported: \(what)."
        case .unsupportedAttestation(let what): "This authenticator's attestation is not supported: \(what)."
        case .invalidAttestation(let what): "The authenticator's attestation does not verify: \(what)."
        case .wrongCeremony(let expected): "The answer is not a \(expected) ceremony's."
        case .challengeMismatch: "The answer is not for this sign-in's challenge."
        case .originNotAllowed(let origin): "The passkey was used from an origin this server does not serve (\(origin))."
        case .crossOrigin: "Passkeys cannot be used from inside another site's frame."
        case .rpIDMismatch: "The passkey belongs to another site."
        case .userNotPresent: "The authenticator did not confirm a person was present."
        case .userNotVerified: "The authenticator did not verify you (PIN or biometrics are required)."
        case .badSignature: "The passkey's signature does not verify."
        case .signCountRegressed: "This authenticator's counter went backwards; it may have been cloned."
        case .digestFailed: "The server could not check the passkey just now; try again."
        }
    }
}
