import Foundation
import Secrets

/// The page's answer to `create()`: `PublicKeyCredential.toJSON()` (WebAuthn Level 3
/// `RegistrationResponseJSON`), binary members as base64url text.
public struct RegistrationResponse: Sendable, Equatable {
    public var id: [UInt8]
    public var clientDataJSON: [UInt8]
    public var attestationObject: [UInt8]
    /// What the authenticator says it can be reached by ("internal", "hybrid", "usb", …).
    public var transports: [String]

    public init(json: [UInt8]) throws(WebAuthnError) {
        let wire: CredentialWire<AttestationWire> = try decodeCredential(json)
        id = try base64URL(wire.rawId ?? wire.id, "rawId")
        clientDataJSON = try base64URL(wire.response.clientDataJSON, "clientDataJSON")
        attestationObject = try base64URL(wire.response.attestationObject, "attestationObject")
        transports = Array((wire.response.transports ?? []).filter { $0.count <= 32 }.prefix(8))
    }
}

/// The page's answer to `get()`: `AuthenticationResponseJSON`.
public struct AssertionResponse: Sendable, Equatable {
    public var id: [UInt8]
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// The user handle a discoverable credential carries (the account it was made for).
    public var userHandle: [UInt8]?

    public init(json: [UInt8]) throws(WebAuthnError) {
        let wire: CredentialWire<AssertionWire> = try decodeCredential(json)
        id = try base64URL(wire.rawId ?? wire.id, "rawId")
        clientDataJSON = try base64URL(wire.response.clientDataJSON, "clientDataJSON")
        authenticatorData = try base64URL(wire.response.authenticatorData, "authenticatorData")
        signature = try base64URL(wire.response.signature, "signature")
        if let handle = wire.response.userHandle, !handle.isEmpty {
            userHandle = try base64URL(handle, "userHandle")
        } else {
            userHandle = nil
        }
    }
}

/// `PublicKeyCredential.toJSON()`'s envelope, the same for both ceremonies.
struct CredentialWire<Response: Decodable>: Decodable {
    var id: String
    var rawId: String?
    var response: Response
}

/// `AuthenticatorAttestationResponseJSON`'s members that are read.
struct AttestationWire: Decodable {
    var clientDataJSON, attestationObject: String
    var transports: [String]?
}

/// `AuthenticatorAssertionResponseJSON`'s members that are read.
struct AssertionWire: Decodable {
    var clientDataJSON, authenticatorData, signature: String
    var userHandle: String?
}

/// The largest credential JSON read: an attestation object with a certificate chain is a few KiB.
let maxCredentialJSON = 32 * 1024

private func decodeCredential<Wire: Decodable>(_ json: [UInt8]) throws(WebAuthnError) -> Wire {
    guard json.count <= maxCredentialJSON else { throw .malformed("the credential is too large") }
    do { return try JSONDecoder().decode(Wire.self, from: Data(json)) } catch {
        throw .malformed("the credential is not the expected JSON")
    }
}

/// base64url as browsers write it (padding, when a client adds it, is tolerated).
private func base64URL(_ text: String, _ name: String) throws(WebAuthnError) -> [UInt8] {
    guard let bytes = Base64URL.decode(text) else { throw .malformed("\(name) is not base64url") }
    return bytes
}
