import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam
import Store
import WebAuthn

/// Signing in with a passkey, a person on the pages and APIs or a superuser on the console, by one
/// rule: one of the source's sign-in tries of that door (`Budget.signInTries`, shared with its
/// passwords), the assertion checked among that door's holders only (a person's passkey never opens
/// the console, nor a superuser's an account), then the session opened; recorded as the door's
/// completed sign-in with `method: passkey`, a refusal as its failed one with the reason. A passkey
/// sign-in counts as both factors — the authenticator verified its holder (UV is required) and
/// holds the key — so no second step follows.
extension Passkeys {
    /// Which holders a sign-in is among, and what the one rule reads of each.
    enum SignInDoor {
        /// People, on the pages and the compatible APIs.
        case accounts
        /// Superusers, on the console's sign-in page.
        case console

        /// Whose sign-in tries it spends.
        var budget: Budget.Door { self == .console ? .staff : .people }
        /// What its challenges are bound to besides themselves.
        var binding: String? { self == .console ? "console-sign-in" : nil }
        var completed: AuditEvent { self == .console ? .consoleSignInCompleted : .signInCompleted }
        var failed: AuditEvent { self == .console ? .consoleSignInFailed : .signInFailed }
    }

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

    /// Options for `get()` on the console's sign-in page: no email asked, no credentials listed
    /// (the authenticator offers the superuser's own).
    public func staffSignInOptions(rp: RelyingParty, request: Request) async throws -> RequestOptions {
        try await spendStart(request)
        let challenge = try await issueChallenge(.authenticate, for: nil, binding: SignInDoor.console.binding)
        return RequestOptions(rp: rp, challenge: challenge, allow: [])
    }

    /// What a person's passkey sign-in came to.
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
        let opened = await signIn(json, rp: rp, at: .accounts, request: request) { passkey in
            guard case .user(let userID) = passkey.owner else { throw PasskeyError.unknownCredential }
            do {
                try await AccountTrust(env: env).refuseSessionBeforeProof(for: userID, policy: policy)
            } catch AuthError.emailNotVerified {
                throw PasskeyError.unproven
            }
            do {
                return (try await env.backend.opening(for: client).admin.openSession(for: userID), userID.rawValue)
            } catch {
                throw PasskeyError.accountUnavailable
            }
        }
        switch opened {
        case .success(let session): return .signedIn(session)
        case .failure(let refusal): return .refused(refusal)
        }
    }

    /// What a superuser's passkey sign-in came to.
    public enum StaffOutcome: Sendable {
        /// Signed in, both factors: the new console session's token, for the cookie.
        case signedIn(StaffMember, token: String)
        case refused(PasskeyError)
    }

    /// Checks `get()`'s answer on the console's sign-in page and opens a console session.
    public func staffSignIn(_ json: [UInt8], rp: RelyingParty, request: Request) async -> StaffOutcome {
        let opened = await signIn(json, rp: rp, at: .console, request: request) { passkey in
            guard case .superuser(let id) = passkey.owner,
                let superuser = try await env.database.superuser(id: id).map(StaffMember.init)
            else { throw PasskeyError.accountUnavailable }
            let session = try await env.console.start(for: superuser, at: .console, request: request)
            return ((superuser, session.token), superuser.id)
        }
        switch opened {
        case .success(let (superuser, token)): return .signedIn(superuser, token: token)
        case .failure(let refusal): return .refused(refusal)
        }
    }

    /// The one sign-in rule at `door`: `open` opens the session for the checked passkey and names
    /// its holder for the audit; any other error than a `PasskeyError` is `.accountUnavailable`.
    private func signIn<Session>(
        _ json: [UInt8], rp: RelyingParty, at door: SignInDoor, request: Request,
        open: (PasskeyRecord) async throws -> (Session, actor: String)
    ) async -> Result<Session, PasskeyError> {
        do {
            if let refusal = await env.budgets.take(.signInTries(ip: request.remoteAddress, door.budget)) {
                throw PasskeyError.rateLimited(retryAfter: refusal.retryAfter)
            }
            // A person's passkeys live beside the users' backend; a superuser's are Gatehouse's own.
            if door == .accounts { try requireAvailable() }
            let passkey = try await verifiedAssertion(json, rp: rp, binding: door.binding, superusers: door == .console)
            let (session, actor) = try await open(passkey)
            await env.audit.record(
                door.completed, actor: actor, subject: actor, request: request,
                data: AuditTrail.data(["method": "passkey", "passkey": .number(Double(passkey.id))], via: via))
            return .success(session)
        } catch {
            let refusal = (error as? PasskeyError) ?? .accountUnavailable
            await env.audit.record(
                door.failed, request: request,
                data: AuditTrail.data(["method": "passkey", "reason": .string(refusal.reason)], via: via))
            return .failure(refusal)
        }
    }
}
