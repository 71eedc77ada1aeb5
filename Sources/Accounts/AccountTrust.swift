import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Account trust, the one owner of what an account whose address nobody has proven may hold and
/// what the proof of that address ends (the defence against pre-hijacked accounts, Sudhodanan &
/// Paverd 2022). An account is *unproven* until its address is proven — a verification code or
/// link, a reset, a sign-in code or link, a provider that vouches for the address. What it holds
/// meanwhile — password, passkeys, authenticator app, provider links, sessions of every kind but
/// staff's impersonations — is provisional: the first proof ends every provisional credential and
/// session not bound to it, in the proof's own transaction (the store's `proveAddress`, which every
/// proof on every way in runs), audited once as `account.proven` with what ended and what was kept.
///
/// Bound to a proof: for the code or link of the sign-up's own verification mail, the credentials
/// the account was made with; for a verification token an app's backend asked for without naming a
/// session (SuperTokens' `recipe/user/email/verify/token`), those and the sessions live when it
/// asked; nothing, for any other proof (a resend anyone may ask for, a reset, a sign-in code or
/// link, a vouching provider). An account staff mark unverified is not provisional. Before the proof,
/// this owner refuses what would add a way in on the unproven claim (`refuseNewWayIn`) and the
/// sessions no vendor's contract demands (`refuseSessionBeforeProof`); `WayInPolicy`
/// `.sessionsBeforeVerification` admits a provisional session, and what it adds, and never skips
/// the proof's wipe.
public struct AccountTrust: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// Whether `user` is unproven while addresses are verified (with `--verification none` every
    /// account is made proven).
    func isUnproven(_ user: User) -> Bool {
        env.verificationMode != .none && !user.emailVerified
    }

    /// Refuses a way in added to an unproven account — a first password, an authenticator app, a
    /// provider link, a passkey after sign-up — with `.emailNotVerified`, which every front-end
    /// answers in its own shape: whoever holds an unproven account proves the address first. A way
    /// in whose contract hands out sessions before verification (`policy`) adds it provisional:
    /// the first proof ends it with the session that made it.
    func refuseNewWayIn(on user: User, policy: WayInPolicy = .serverDefaults) throws {
        if isUnproven(user) && !policy.sessionsBeforeVerification { throw AuthError.emailNotVerified(email: user.email) }
    }

    /// Refuses a session that proves nothing about the address (a passkey sign-in) for an unproven
    /// account: `.emailNotVerified`. A way in whose contract signs unverified accounts in
    /// (`policy`: Descope's) gets it provisional instead.
    func refuseSessionBeforeProof(for userID: UserID, policy: WayInPolicy) async throws {
        guard env.verificationMode != .none, !policy.sessionsBeforeVerification,
            let user = try await env.database.user(id: userID)
        else { return }
        if !user.verified { throw AuthError.emailNotVerified(email: user.email) }
    }

    /// The address of the unproven account the sign-up mail's "this wasn't me" `token` would remove;
    /// nil when it names none (or the backend keeps no such links).
    public func disownableAccount(token: String) async throws -> String? {
        guard let accounts = env.backend as? any DisownableAccounts else { return nil }
        return try await accounts.disownableAccount(token: token)
    }

    /// Removes the unproven account `token` names — never a proven one — audited as
    /// `account.disowned`; its address, or nil when none was removed.
    public func disown(token: String, request: Request) async throws -> String? {
        guard let accounts = env.backend as? any DisownableAccounts,
            let email = try await accounts.disownAccount(token: token)
        else { return nil }
        await env.audit.record(.accountDisowned, request: request, data: ["email": .string(email)])
        return email
    }
}
