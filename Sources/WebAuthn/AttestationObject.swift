/// What `navigator.credentials.create()` returns besides client data (WebAuthn §6.5): the
/// authenticator data announcing the credential, and a statement in some format vouching for it.
///
/// Accepted formats: `none` (what browsers send when the options ask for no attestation, as
/// Gatehouse's do) and `packed` self-attestation (signed by the credential's own key). Refused
/// with `unsupportedAttestation`: `packed` with a certificate chain (`x5c`) and every other
/// format (`tpm`, `android-key`, `android-safetynet`, `fido-u2f`, `apple`, `compound`) — Gatehouse
/// keeps no metadata of trusted authenticator models to check them against.
public struct AttestationObject: Sendable {
    public var format: String
    public var statement: CBOR
    public var authenticatorData: AuthenticatorData

    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        let object: CBOR
        do { object = try CBORDecoder.decode(bytes) } catch { throw .malformed("attestation object: \(error)") }
        guard let format = object["fmt"]?.textString, let statement = object["attStmt"],
            let authData = object["authData"]?.byteString
        else { throw .malformed("the attestation object lacks fmt, attStmt or authData") }
        guard case .map = statement else { throw .malformed("attStmt is not a map") }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(authData)
    }

    /// §8.2 (packed) and §8.7 (none): checks the statement over `clientDataHash`.
    public func verifyStatement(clientDataHash: [UInt8]) throws(WebAuthnError) {
        guard let credential = authenticatorData.attestedCredential else {
            throw .malformed("the authenticator data announces no credential")
        }
        switch format {
        case "none":
            guard statement == .map([]) else { throw .invalidAttestation("a none attestation carries a statement") }
        case "packed":
            guard statement["x5c"] == nil, statement["ecdaaKeyId"] == nil else {
                throw .unsupportedAttestation("packed with a certificate chain; only self-attestation is accepted")
            }
            guard let alg = statement["alg"]?.int, let signature = statement["sig"]?.byteString else {
                throw .invalidAttestation("the packed statement lacks alg or sig")
            }
            guard alg == credential.publicKey.algorithm.rawValue else {
                throw .invalidAttestation("the statement's algorithm is not the credential's")
            }
            guard credential.publicKey.isValidSignature(signature, for: authenticatorData.raw + clientDataHash) else {
                throw .invalidAttestation("the self-attestation signature does not verify")
            }
        default:
            throw .unsupportedAttestation("the \(format) format")
        }
    }
}
