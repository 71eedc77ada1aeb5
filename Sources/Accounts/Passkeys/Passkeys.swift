import AuthCore
import Foundation
import HTTPServer
import Secrets
import Store
import WebAuthn

/// Passkeys (WebAuthn credentials), a person's whichever way in and a superuser's on the console
/// (`PasskeyHolder` says whose): registering one while signed in, signing in with one (with an
/// email, or with none — the authenticator names the account), and listing, renaming and deleting
/// them. The one owner of every rule around the ceremonies: challenges
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
        try await registrationOptions(for: .person(signedIn), rp: rp, rpName: rpName, request: request, policy: policy)
    }

    /// A superuser's options for `create()` on the console, as a person's: only in a recent console
    /// sign-in (the password again renews it, `StaffRecentSignIn`).
    public func registrationOptions(for staff: Staff, rp: RelyingParty, rpName: String, request: Request) async throws
        -> CreationOptions
    {
        try await registrationOptions(for: .staff(staff), rp: rp, rpName: rpName, request: request, policy: .serverDefaults)
    }

    private func registrationOptions(
        for holder: PasskeyHolder, rp: RelyingParty, rpName: String, request: Request, policy: WayInPolicy
    ) async throws -> CreationOptions {
        try requireMayAdd(holder, policy: policy)
        try await spendStart(request)
        let challenge = try await issueChallenge(
            .register, for: holder.challengeAccount, binding: holder.registrationBinding)
        let existing = try await env.database.passkeys(of: holder.owner)
        return CreationOptions(
            rp: rp, rpName: rpName, userHandle: holder.owner.userHandle, userName: holder.userName,
            displayName: holder.displayName, challenge: challenge,
            exclude: existing.map { CredentialDescriptor(id: $0.credentialID, transports: $0.transports) })
    }

    /// Checks `create()`'s answer (`RegistrationResponseJSON`) and stores the passkey under `name`
    /// (when nil or blank, its authenticator's name or "Passkey"); under `policy`, only in a recent
    /// sign-in.
    public func register(
        _ json: [UInt8], name: String?, for signedIn: SignedIn, rp: RelyingParty, request: Request, policy: WayInPolicy
    ) async throws -> PasskeySummary {
        try await register(json, name: name, for: .person(signedIn), rp: rp, request: request, policy: policy)
    }

    /// A superuser's `create()` answer on the console, checked and stored as a person's.
    public func register(_ json: [UInt8], name: String?, for staff: Staff, rp: RelyingParty, request: Request) async throws
        -> PasskeySummary
    {
        try await register(json, name: name, for: .staff(staff), rp: rp, request: request, policy: .serverDefaults)
    }

    /// Takes one of the source's code checks (as an authenticator app's enrolment does), then
    /// stores the checked credential under `holder`; audited either way.
    private func register(
        _ json: [UInt8], name: String?, for holder: PasskeyHolder, rp: RelyingParty, request: Request, policy: WayInPolicy
    ) async throws -> PasskeySummary {
        try requireMayAdd(holder, policy: policy)
        do {
            if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
                throw PasskeyError.rateLimited(retryAfter: refusal.retryAfter)
            }
            let given = try Self.checkedName(name ?? "", default: "")
            let (response, credential) = try await verifiedRegistration(
                json, rp: rp, binding: holder.registrationBinding, boundTo: holder.challengeAccount)
            let name = Self.storedName(given: given, for: credential)
            let new = NewPasskey(
                credentialID: credential.id, owner: holder.owner, publicKey: credential.publicKeyCOSE,
                signCount: credential.signCount, transports: response.transports, name: name,
                backupEligible: credential.flags.backupEligible, backedUp: credential.flags.backedUp)
            guard let stored = try await env.database.addPasskey(new, at: env.clock()) else {
                throw PasskeyError.alreadyRegistered
            }
            await holder.record(
                .added, in: env, via: via, request: request,
                data: ["passkey": .number(Double(stored.id)), "name": .string(name), "format": .string(credential.format)])
            return PasskeySummary(stored)
        } catch let error as PasskeyError {
            await holder.record(.addFailed, in: env, via: via, request: request, data: ["reason": .string(error.reason)])
            throw error
        }
    }

    /// What may stop `holder` adding a passkey: an impersonation never does (it would outlive the
    /// impersonation); a person's needs the backend to keep passkeys and a proven address
    /// (`AccountTrust`); and either needs a recent sign-in under `policy`.
    private func requireMayAdd(_ holder: PasskeyHolder, policy: WayInPolicy) throws {
        if holder.session.impersonator != nil { throw ImpersonationRefusal.credentialChange }
        if case .person = holder { try requireAvailable() }
        if needsFreshSignIn(holder, policy: policy) {
            if case .staff = holder { throw FreshSignInRequired(.addPasskey, onConsole: true) }
            throw FreshSignInRequired(.addPasskey)
        }
        if case .person(let signedIn) = holder { try AccountTrust(env: env).refuseNewWayIn(on: signedIn.user, policy: policy) }
    }

    // MARK: The list

    public func list(of signedIn: SignedIn) async throws -> [PasskeySummary] {
        guard available else { return [] }
        return try await list(of: .person(signedIn))
    }

    /// A superuser's passkeys, oldest first (whatever the users' backend: they are Gatehouse's own).
    public func list(of staff: Staff) async throws -> [PasskeySummary] { try await list(of: .staff(staff)) }

    private func list(of holder: PasskeyHolder) async throws -> [PasskeySummary] {
        try await env.database.passkeys(of: holder.owner).map(PasskeySummary.init)
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
        await recordDeletion(deleted, of: .person(signedIn), request: request)
    }

    /// Deletes one of a superuser's passkeys: their password always signs them in, so none is their last way in.
    public func delete(id: Int64, of staff: Staff, request: Request) async throws {
        let holder = PasskeyHolder.staff(staff)
        guard let deleted = try await env.database.deletePasskey(id: id, of: holder.owner) else {
            throw PasskeyError.notFound
        }
        await recordDeletion(deleted, of: holder, request: request)
    }

    private func recordDeletion(_ deleted: PasskeyRecord, of holder: PasskeyHolder, request: Request) async {
        await holder.record(
            .deleted, in: env, via: via, request: request,
            data: ["passkey": .number(Double(deleted.id)), "name": .string(deleted.name)])
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
        needsFreshSignIn(.person(signedIn), policy: policy)
    }

    private func needsFreshSignIn(_ holder: PasskeyHolder, policy: WayInPolicy) -> Bool {
        policy.newPasskeysNeedRecentSignIn && RecentSignIn.isStale(begun: holder.session.createdAt, now: env.clock())
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
