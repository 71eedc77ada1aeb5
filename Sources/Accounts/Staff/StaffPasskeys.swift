import AuthCore
import Foundation
import HTTPServer
import Store
import WebAuthn

/// A superuser's own passkeys, for the console sign-in: add, list and delete them on
/// `/_/security`, sign in with one on `/_/`. They are Gatehouse's own, as superusers are, so they
/// work whatever the users' backend. Kept apart from people's: stored under the superuser
/// (`PasskeyOwner.superuser`), looked up only among superusers' (a person's passkey never opens
/// the console, nor a superuser's an account), with their own user handle, and challenges bound
/// to the console (a challenge issued by the account pages cannot be answered here, nor the
/// reverse). A sign-in with one counts as both factors — the authenticator verified the superuser
/// (UV is required) and holds the key — so no authenticator-app step follows; it takes one of the
/// source's superuser sign-in tries (`Budget.signInTries(.staff)`, the password sign-in's), and
/// every act is audited.
public struct StaffPasskeys: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// The ceremonies' shared checks and challenges.
    private var ceremonies: Passkeys { Passkeys(env: env) }

    /// What the console's sign-in challenges are bound to.
    private static let signInBinding = "console-sign-in"

    private static func registrationBinding(_ superuser: StaffMember) -> String { "console-register\n" + superuser.id }

    /// The superuser's passkeys, oldest first.
    public func list(_ superuser: StaffMember) async throws -> [PasskeySummary] {
        try await env.database.passkeys(of: .superuser(superuser.id)).map(PasskeySummary.init)
    }

    /// Options for `create()`: a fresh challenge bound to the superuser, their passkeys excluded;
    /// one of the source's passkey starts, as a person's. Only in a recent console sign-in
    /// (`StaffRecentSignIn`).
    public func registrationOptions(
        for staff: Staff, rp: RelyingParty, rpName: String, request: Request
    ) async throws -> CreationOptions {
        try StaffRecentSignIn.require(.addPasskey, staff, now: env.clock())
        let superuser = staff.superuser
        try await ceremonies.spendStart(request)
        let challenge = try await ceremonies.issueChallenge(.register, for: nil, binding: Self.registrationBinding(superuser))
        return CreationOptions(
            rp: rp, rpName: rpName, userHandle: PasskeyOwner.superuser(superuser.id).userHandle, userName: superuser.email,
            displayName: "\(superuser.email) (console)", challenge: challenge,
            exclude: try await env.database.passkeys(of: .superuser(superuser.id)).map {
                CredentialDescriptor(id: $0.credentialID, transports: $0.transports)
            })
    }

    /// Checks `create()`'s answer and stores the passkey under `name` (when blank, its
    /// authenticator's name or "Passkey", as a person's);
    /// one of the source's code checks, as a person's registration. Only in a recent console
    /// sign-in, as the options.
    public func register(
        _ json: [UInt8], name: String?, for staff: Staff, rp: RelyingParty, request: Request
    ) async throws -> PasskeySummary {
        try StaffRecentSignIn.require(.addPasskey, staff, now: env.clock())
        let superuser = staff.superuser
        do {
            if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
                throw PasskeyError.rateLimited(retryAfter: refusal.retryAfter)
            }
            let given = try Passkeys.checkedName(name ?? "", default: "")
            let (response, credential) = try await ceremonies.verifiedRegistration(
                json, rp: rp, binding: Self.registrationBinding(superuser), boundTo: nil)
            let name = Passkeys.storedName(given: given, for: credential)
            let new = NewPasskey(
                credentialID: credential.id, owner: .superuser(superuser.id), publicKey: credential.publicKeyCOSE,
                signCount: credential.signCount, transports: response.transports, name: name,
                backupEligible: credential.flags.backupEligible, backedUp: credential.flags.backedUp)
            guard let stored = try await env.database.addPasskey(new, at: env.clock()) else {
                throw PasskeyError.alreadyRegistered
            }
            await env.audit.record(
                .consolePasskeyAdded, actor: superuser.id, request: request,
                data: ["passkey": .number(Double(stored.id)), "name": .string(name), "format": .string(credential.format)])
            return PasskeySummary(stored)
        } catch let error as PasskeyError {
            await env.audit.record(
                .consolePasskeyAddFailed, actor: superuser.id, request: request, data: ["reason": .string(error.reason)])
            throw error
        }
    }

    /// Deletes one of the superuser's passkeys (their password still signs them in).
    public func delete(id: Int64, of superuser: StaffMember, request: Request) async throws {
        guard let deleted = try await env.database.deletePasskey(id: id, of: .superuser(superuser.id)) else {
            throw PasskeyError.notFound
        }
        await env.audit.record(
            .consolePasskeyDeleted, actor: superuser.id, request: request,
            data: ["passkey": .number(Double(id)), "name": .string(deleted.name)])
    }

    /// Options for `get()` on the console's sign-in page: no email asked, no credentials listed
    /// (the authenticator offers the superuser's own).
    public func signInOptions(rp: RelyingParty, request: Request) async throws -> RequestOptions {
        try await ceremonies.spendStart(request)
        return RequestOptions(
            rp: rp, challenge: try await ceremonies.issueChallenge(.authenticate, for: nil, binding: Self.signInBinding),
            allow: [])
    }

    /// What a console passkey sign-in came to.
    public enum Outcome: Sendable {
        /// Signed in, both factors: the new console session's token, for the cookie.
        case signedIn(StaffMember, token: String)
        case refused(PasskeyError)
    }

    /// Checks `get()`'s answer and opens a console session, recorded as
    /// `console.sign_in.completed` with `method: passkey` (a refusal as `console.sign_in.failed`).
    public func signIn(_ json: [UInt8], rp: RelyingParty, request: Request) async -> Outcome {
        do {
            if let refusal = await env.budgets.take(.signInTries(ip: request.remoteAddress, .staff)) {
                throw PasskeyError.rateLimited(retryAfter: refusal.retryAfter)
            }
            let passkey = try await ceremonies.verifiedAssertion(json, rp: rp, binding: Self.signInBinding, superusers: true)
            guard case .superuser(let id) = passkey.owner,
                let superuser = try await env.database.superuser(id: id).map(StaffMember.init)
            else {
                throw PasskeyError.accountUnavailable
            }
            let session = try await env.console.start(for: superuser, at: .console, request: request)
            await env.audit.record(
                .consoleSignInCompleted, actor: superuser.id, subject: superuser.id, request: request,
                data: ["method": "passkey", "passkey": .number(Double(passkey.id))])
            return .signedIn(superuser, token: session.token)
        } catch {
            let refusal = (error as? PasskeyError) ?? .accountUnavailable
            await env.audit.record(
                .consoleSignInFailed, request: request, data: ["method": "passkey", "reason": .string(refusal.reason)])
            return .refused(refusal)
        }
    }
}
