import AuthCore
import Foundation
import HTTPServer
import Secrets
import Store
import WebAuthn

/// Passkey-only accounts: signing up with a passkey and no password. The account's id is drawn
/// when the ceremony starts, because the authenticator keeps it as the passkey's user handle; the
/// challenge is bound to that id and the address, so the finish must name both again. The account
/// itself is made by the sign-up owner (`SignUp`: the source's sign-up budget, `user.signed_up`,
/// the verification mail and its cool-down), only after the authenticator's answer checked out.
extension Passkeys {
    /// What starting a passkey sign-up gives the page: the options for `create()`, and the new
    /// account's id, which the finish hands back.
    public struct SignUpStart: Sendable, Encodable {
        public var publicKey: CreationOptions
        public var user: String
    }

    /// Options for `create()` for a new account at `email`. Nothing is checked about the address
    /// yet (a taken one gets options alike), so the answer tells nothing about who has an account.
    public func signUpOptions(email: String, name: String?, rp: RelyingParty, rpName: String, request: Request) async throws
        -> SignUpStart
    {
        try requireAvailable()
        try await spendStart(request)
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let name = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = UserID(SecureRandom.userID())
        let challenge = try await issueChallenge(.register, for: nil, binding: Self.signUpBinding(id: id, email: email))
        let options = CreationOptions(
            rp: rp, rpName: rpName, userHandle: Array(id.rawValue.utf8), userName: email,
            displayName: name.flatMap { $0.isEmpty ? nil : $0 } ?? email, challenge: challenge, exclude: [])
        return SignUpStart(publicKey: options, user: id.rawValue)
    }

    /// Checks `create()`'s answer for the sign-up `signUpOptions` started (`user` is the id it
    /// gave), then signs the account up without a password and stores the passkey as its first.
    /// Throws `PasskeyError` for an answer that does not check out, and the sign-up owner's
    /// refusals (`AuthError.rateLimited`, `.validation`, `.emailExists`) as a password sign-up does.
    /// `policy`: the way in's departures (Descope's API opens a session before verification).
    public func signUp(
        _ json: [UInt8], email: String, name: String?, user: String, rp: RelyingParty,
        policy: WayInPolicy = .serverDefaults, request: Request
    ) async throws -> SignUpOutcome {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let name = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = UserID(user)
        let response: RegistrationResponse
        let credential: RelyingParty.NewCredential
        do {
            try requireAvailable()
            (response, credential) = try await verifiedRegistration(
                json, rp: rp, binding: Self.signUpBinding(id: id, email: email), boundTo: nil)
            if try await env.database.passkey(credentialID: credential.id) != nil { throw PasskeyError.alreadyRegistered }
        } catch let error as PasskeyError {
            await env.audit.record(
                .signUpRefused, request: request,
                data: AuditTrail.data(
                    ["email": .string(email), "method": "passkey", "reason": .string(error.reason)], via: via))
            throw error
        }
        let outcome = try await SignUp(env: env, via: via, policy: policy).attemptWithoutPassword(
            id: id, email: email, name: name.flatMap { $0.isEmpty ? nil : $0 }, request: request)
        let new = NewPasskey(
            credentialID: credential.id, owner: .user(id), publicKey: credential.publicKeyCOSE, signCount: credential.signCount,
            transports: response.transports, name: Self.storedName(given: "", for: credential),
            backupEligible: credential.flags.backupEligible,
            backedUp: credential.flags.backedUp)
        guard let stored = try await env.database.addPasskey(new, at: env.clock()) else {
            // Registered elsewhere between the check and now: the account would have no way in.
            try await env.backend.admin.deleteUser(id)
            throw PasskeyError.alreadyRegistered
        }
        await env.audit.record(
            .passkeyAdded, actor: id.rawValue, subject: id.rawValue, request: request,
            data: AuditTrail.data(
                ["passkey": .number(Double(stored.id)), "name": .string(stored.name), "format": .string(credential.format)],
                via: via))
        return outcome
    }

    /// What a sign-up's challenge is bound to besides itself: the account id and the address.
    private static func signUpBinding(id: UserID, email: String) -> String {
        "sign-up\n" + id.rawValue + "\n" + EmailAddress.normalize(email)
    }
}
