import AuthCore
import Foundation
import Store
import WebAuthn

/// The checks every passkey ceremony shares, whoever's passkey it is (a person's on the pages and
/// APIs, a superuser's on the console): the challenge spent (bound to what the ceremony's start
/// bound it to), the authenticator's answer verified, the credential looked up among its kind of
/// owner only, the counter moved.
extension Passkeys {
    /// Checks `create()`'s answer: its challenge is spent (issued with `binding`, for `boundTo`'s
    /// account or for none), then the attestation verified with user verification required.
    func verifiedRegistration(
        _ json: [UInt8], rp: RelyingParty, binding: String?, boundTo: UserID?
    ) async throws -> (RegistrationResponse, RelyingParty.NewCredential) {
        let response = try checked { () throws(WebAuthnError) in try RegistrationResponse(json: json) }
        guard case .spent(let owner) = try await spendChallenge(response.clientDataJSON, .register, binding: binding),
            owner == boundTo
        else { throw PasskeyError.unknownChallenge }
        let challenge = try challengeBytes(response.clientDataJSON)
        let credential = try checked { () throws(WebAuthnError) in
            try rp.verifyRegistration(
                clientDataJSON: response.clientDataJSON, attestationObject: response.attestationObject,
                challenge: challenge, userVerification: true)
        }
        return (response, credential)
    }

    /// Checks `get()`'s answer: its challenge is spent (issued with `binding`), the credential is
    /// one of a person's (or, with `superusers`, a superuser's) and the account the challenge was
    /// bound to, if any; the user handle names its owner; the signature holds with user
    /// verification; and the counter moves from the value read (of two raced answers, one wins).
    func verifiedAssertion(
        _ json: [UInt8], rp: RelyingParty, binding: String? = nil, superusers: Bool = false
    ) async throws -> PasskeyRecord {
        let response = try checked { () throws(WebAuthnError) in try AssertionResponse(json: json) }
        guard case .spent(let boundTo) = try await spendChallenge(response.clientDataJSON, .authenticate, binding: binding)
        else { throw PasskeyError.unknownChallenge }
        guard let passkey = try await env.database.passkey(credentialID: response.id, superusers: superusers) else {
            throw PasskeyError.unknownCredential
        }
        if let boundTo, passkey.owner != .user(boundTo) { throw PasskeyError.otherAccount }
        if let handle = response.userHandle, handle != passkey.owner.userHandle { throw PasskeyError.otherAccount }
        let challenge = try challengeBytes(response.clientDataJSON)
        let assertion = try checked { () throws(WebAuthnError) in
            try rp.verifyAssertion(
                clientDataJSON: response.clientDataJSON, authenticatorData: response.authenticatorData,
                signature: response.signature, challenge: challenge,
                publicKeyCOSE: passkey.publicKey, storedSignCount: passkey.signCount, userVerification: true)
        }
        guard
            try await env.database.recordPasskeyUse(
                id: passkey.id, expectedSignCount: passkey.signCount, signCount: assertion.signCount,
                backedUp: assertion.flags.backedUp, at: env.clock())
        else { throw PasskeyError.raced }
        return passkey
    }
}

extension PasskeyOwner {
    /// The WebAuthn user handle the authenticator keeps for this owner's passkeys: a person's
    /// account id, or `superuser:` and the superuser's id (no account id has a colon), so the two
    /// never name each other even on one relying party.
    var userHandle: [UInt8] {
        switch self {
        case .user(let id): Array(id.rawValue.utf8)
        case .superuser(let id): Array("superuser:\(id)".utf8)
        }
    }
}
