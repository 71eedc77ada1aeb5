import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam
import Store
import WebAuthn

/// A person's passkeys (WebAuthn credentials), whichever way in: registering one while signed in,
/// signing in with one (with an email, or with none — the authenticator names the account), and
/// listing, renaming and deleting them. The owner of every rule around the ceremonies: challenges
/// are single-use and expire (`Ceremony.challengeLifetime`, or `--passkey-challenge-lifetime`);
/// registration takes one of the source's code checks (as an authenticator app's enrolment does)
/// and is never done through an impersonation; a sign-in takes one of the source's sign-in tries (`Budget.signInTries`, shared
/// with passwords). A passkey sign-in is complete: the authenticator verified the person (UV is
/// required) and holds the key, so it counts as both factors and no second step follows. Every act
/// is audited.
public struct Passkeys: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("descope-api"); nil for the pages.
    let via: String?

    public init(env: Accounts, via: String? = nil) { (self.env, self.via) = (env, via) }

    /// Whether the users' backend is the one passkeys are kept beside (the embedded store).
    public var available: Bool { env.capabilities.contains(.passkeys) }

    // MARK: Registration

    /// Options for `create()`: a fresh challenge bound to the signed-in account, the account's
    /// current credentials excluded. Each call spends the source's `passkeyStarts`, as a sign-in's
    /// does: a session is no licence to store challenges without end. Under `policy`, only in a
    /// recent sign-in (`FreshSignInRequired` otherwise); never on an unproven account (`AccountTrust`).
    public func registrationOptions(
        for signedIn: SignedIn, rp: RelyingParty, rpName: String, request: Request, policy: WayInPolicy
    ) async throws -> CreationOptions {
        try refuseImpersonation(signedIn)
        try requireAvailable()
        try requireRecentSignIn(signedIn, policy)
        try AccountTrust(env: env).refuseNewWayIn(on: signedIn.user, policy: policy)
        try await spendStart(request)
        let user = signedIn.user
        let challenge = try await issueChallenge(.register, for: user.id)
        let existing = try await env.database.passkeys(of: user.id)
        return CreationOptions(
            rp: rp, rpName: rpName, userHandle: Array(user.id.rawValue.utf8), userName: user.email,
            displayName: user.profile.name ?? user.email, challenge: challenge,
            exclude: existing.map { CredentialDescriptor(id: $0.credentialID, transports: $0.transports) })
    }

    /// Checks `create()`'s answer (`RegistrationResponseJSON`) and stores the passkey under `name`
    /// (when nil or blank, its authenticator's name or "Passkey"); under `policy`, only in a recent
    /// sign-in.
    public func register(
        _ json: [UInt8], name: String?, for signedIn: SignedIn, rp: RelyingParty, request: Request, policy: WayInPolicy
    ) async throws -> PasskeySummary {
        try refuseImpersonation(signedIn)
        try requireAvailable()
        try requireRecentSignIn(signedIn, policy)
        try AccountTrust(env: env).refuseNewWayIn(on: signedIn.user, policy: policy)
        do {
            if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
                throw PasskeyError.rateLimited(retryAfter: refusal.retryAfter)
            }
            let given = try Self.checkedName(name ?? "", default: "")
            let (response, credential) = try await verifiedRegistration(
                json, rp: rp, binding: nil, boundTo: signedIn.user.id)
            let name = Self.storedName(given: given, for: credential)
            let new = NewPasskey(
                credentialID: credential.id, owner: .user(signedIn.user.id), publicKey: credential.publicKeyCOSE,
                signCount: credential.signCount, transports: response.transports, name: name,
                backupEligible: credential.flags.backupEligible, backedUp: credential.flags.backedUp)
            guard let stored = try await env.database.addPasskey(new, at: env.clock()) else {
                throw PasskeyError.alreadyRegistered
            }
            await env.audit.recordOwnAct(
                .passkeyAdded, of: signedIn, request: request,
                data: AuditTrail.data(
                    ["passkey": .number(Double(stored.id)), "name": .string(name), "format": .string(credential.format)], via: via
                ))
            return PasskeySummary(stored)
        } catch let error as PasskeyError {
            await env.audit.recordOwnAct(
                .passkeyAddFailed, of: signedIn, request: request,
                data: AuditTrail.data(["reason": .string(error.reason)], via: via))
            throw error
        }
    }

    // MARK: Sign-in

    /// Options for `get()`. With an email, the challenge is bound to that account, so only its
    /// passkeys can answer; an unknown email gets options just alike (its challenge is not kept,
    /// so any answer is refused). No credential ids are listed either way: they would tell which
    /// addresses have accounts (passkeys are discoverable, so the authenticator finds its own).
    /// `requiringPasskeys`: an API whose contract says "this account has none" (Descope's `E067010`)
    /// is refused with `.noPasskeys` both for an address with no passkeys and for one with no account.
    /// Each call spends the source's `passkeyStarts`, known address or not.
    public func signInOptions(email: String?, rp: RelyingParty, requiringPasskeys: Bool = false, request: Request)
        async throws -> RequestOptions
    {
        try requireAvailable()
        try await spendStart(request)
        let email = email?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let email, !email.isEmpty else {
            return RequestOptions(rp: rp, challenge: try await issueChallenge(.authenticate, for: nil), allow: [])
        }
        let user = try await env.database.user(email: email)
        if requiringPasskeys {
            let passkeys = if let user { try await env.database.passkeys(of: user.id) } else { [PasskeyRecord]() }
            guard !passkeys.isEmpty else { throw PasskeyError.noPasskeys }
        }
        guard let user else {
            return RequestOptions(rp: rp, challenge: SecureRandom.bytes(Ceremony.challengeLength), allow: [])
        }
        return RequestOptions(rp: rp, challenge: try await issueChallenge(.authenticate, for: user.id), allow: [])
    }

    /// What a passkey sign-in came to.
    public enum Outcome: Sendable {
        /// Signed in, both factors: the backend's session, opened for `client`.
        case signedIn(AuthSession)
        case refused(PasskeyError)
    }

    /// Checks `get()`'s answer (`AuthenticationResponseJSON`) and opens a session for the
    /// passkey's account — never for one whose address is unproven (`.unproven`, `AccountTrust`)
    /// unless `policy` admits it.
    public func signIn(
        _ json: [UInt8], rp: RelyingParty, client: SessionClient = .browserSession, policy: WayInPolicy = .serverDefaults,
        request: Request
    ) async -> Outcome {
        do {
            if let refusal = await env.budgets.take(.signInTries(ip: request.remoteAddress, .people)) {
                throw PasskeyError.rateLimited(retryAfter: refusal.retryAfter)
            }
            let (passkey, userID, session) = try await verifiedSignIn(json, rp: rp, client: client, policy: policy)
            let user = userID.rawValue
            await env.audit.record(
                .signInCompleted, actor: user, subject: user, request: request,
                data: AuditTrail.data(["method": "passkey", "passkey": .number(Double(passkey.id))], via: via))
            return .signedIn(session)
        } catch {
            let refusal = (error as? PasskeyError) ?? .accountUnavailable
            await env.audit.record(
                .signInFailed, request: request,
                data: AuditTrail.data(["method": "passkey", "reason": .string(refusal.reason)], via: via))
            return .refused(refusal)
        }
    }

    private func verifiedSignIn(
        _ json: [UInt8], rp: RelyingParty, client: SessionClient, policy: WayInPolicy
    ) async throws -> (PasskeyRecord, UserID, AuthSession) {
        try requireAvailable()
        let passkey = try await verifiedAssertion(json, rp: rp)
        guard case .user(let userID) = passkey.owner else { throw PasskeyError.unknownCredential }
        do {
            try await AccountTrust(env: env).refuseSessionBeforeProof(for: userID, policy: policy)
        } catch AuthError.emailNotVerified {
            throw PasskeyError.unproven
        }
        do {
            let session = try await env.backend.opening(for: client).admin.openSession(for: userID)
            return (passkey, userID, session)
        } catch {
            throw PasskeyError.accountUnavailable
        }
    }

    // MARK: The list

    public func list(of signedIn: SignedIn) async throws -> [PasskeySummary] {
        guard available else { return [] }
        return try await env.database.passkeys(of: signedIn.user.id).map(PasskeySummary.init)
    }

    public func rename(id: Int64, to name: String, of signedIn: SignedIn, request: Request) async throws {
        try refuseImpersonation(signedIn)
        let name = try Self.checkedName(name, default: nil)
        guard try await env.database.renamePasskey(id: id, of: signedIn.user.id, to: name) else { throw PasskeyError.notFound }
        await env.audit.recordOwnAct(
            .passkeyRenamed, of: signedIn, request: request,
            data: AuditTrail.data(["passkey": .number(Double(id)), "name": .string(name)], via: via))
    }

    /// Deletes one of the person's passkeys, unless it is their last way to sign in (no password,
    /// no linked provider): that would lock them out, so it is refused (`.lastSignInMethod`).
    public func delete(id: Int64, of signedIn: SignedIn, request: Request) async throws {
        try refuseImpersonation(signedIn)
        let deleted: PasskeyRecord
        switch try await env.database.deleteOwnPasskey(id: id, of: signedIn.user.id) {
        case .deleted(let record): deleted = record
        case .notFound: throw PasskeyError.notFound
        case .lastSignInMethod: throw PasskeyError.lastSignInMethod
        }
        await env.audit.recordOwnAct(
            .passkeyDeleted, of: signedIn, request: request,
            data: AuditTrail.data(["passkey": .number(Double(id)), "name": .string(deleted.name)], via: via))
    }

    // MARK: Helpers

    /// A fresh challenge kept (as a keyed hash) for `ceremony`, bound to `user` when given, and to
    /// `binding` (what else the ceremony's finish must name again) when given. It expires in the
    /// bound account's time (`AccountClocks`), else in the server's.
    func issueChallenge(_ ceremony: PasskeyCeremony, for user: UserID?, binding: String? = nil) async throws -> [UInt8] {
        let challenge = SecureRandom.bytes(Ceremony.challengeLength)
        try await env.database.storePasskeyChallenge(
            hash: challengeHash(challenge, binding: binding), purpose: ceremony, userID: user,
            expiresAt: env.clocks.now(forAccountIfAny: user).addingTimeInterval(env.passkeyChallengeLifetime),
            now: env.clock())
        return challenge
    }

    /// Takes one of the source's passkey starts (`Budget.passkeyStarts`) before a ceremony stores
    /// its challenge; `.rateLimited` when none are left.
    func spendStart(_ request: Request) async throws(PasskeyError) {
        if let refusal = await env.budgets.take(.passkeyStarts(ip: request.remoteAddress)) {
            throw .rateLimited(retryAfter: refusal.retryAfter)
        }
    }

    /// Spends the challenge `clientDataJSON` answers, expired in the time it was issued in.
    func spendChallenge(
        _ clientDataJSON: [UInt8], _ ceremony: PasskeyCeremony, binding: String? = nil
    ) async throws -> AppDatabase.SpentChallenge {
        let clocks = env.clocks
        let spent = try await env.database.spendPasskeyChallenge(
            hash: challengeHash(try challengeBytes(clientDataJSON), binding: binding), purpose: ceremony,
            now: { clocks.now(forAccountIfAny: $0) })
        if spent == .expired { throw PasskeyError.expiredChallenge }
        return spent
    }

    func challengeBytes(_ clientDataJSON: [UInt8]) throws(PasskeyError) -> [UInt8] {
        let clientData = try checked { () throws(WebAuthnError) in try ClientData(json: clientDataJSON) }
        guard let bytes = Base64URL.decode(clientData.challenge) else { throw .unknownChallenge }
        return bytes
    }

    private func challengeHash(_ challenge: [UInt8], binding: String?) -> String {
        let key = "passkey-challenge:" + Base64URL.encode(challenge)
        return env.sessions.bindings.hasher.hex(binding.map { key + "\n" + $0 } ?? key)
    }

    func checked<T>(_ body: () throws(WebAuthnError) -> T) throws(PasskeyError) -> T {
        do { return try body() } catch { throw .verification(error) }
    }

    func requireAvailable() throws(PasskeyError) {
        guard available else { throw .notSupported }
    }

    private func refuseImpersonation(_ signedIn: SignedIn) throws {
        if signedIn.session.impersonator != nil { throw ImpersonationRefusal.credentialChange }
    }

    /// Whether adding a passkey in `signedIn` must wait for a new sign-in under `policy`.
    public func needsFreshSignIn(_ signedIn: SignedIn, policy: WayInPolicy) -> Bool {
        policy.newPasskeysNeedRecentSignIn && RecentSignIn.isStale(signedIn, now: env.clock())
    }

    private func requireRecentSignIn(_ signedIn: SignedIn, _ policy: WayInPolicy) throws {
        if needsFreshSignIn(signedIn, policy: policy) { throw FreshSignInRequired(.addPasskey) }
    }

    /// What a new passkey is called, a person's or a superuser's: the checked name its owner gave,
    /// else where it lives, by its authenticator's AAGUID ("iCloud Keychain", "1Password"), else
    /// "Passkey".
    static func storedName(given: String, for credential: RelyingParty.NewCredential) -> String {
        given.isEmpty ? AuthenticatorNames.name(aaguid: credential.aaguid) ?? "Passkey" : given
    }

    /// A name trimmed to 1…64 characters; `fallback` stands in for a blank one.
    static func checkedName(_ name: String, default fallback: String?) throws(PasskeyError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty, let fallback { return fallback }
        guard (1...64).contains(trimmed.count) else { throw .invalidName }
        return trimmed
    }
}
