import Foundation
import HTTPServer
import Store

/// The console's recent sign-in (`RecentSignIn`'s window): a console passkey signs in alone and an
/// authenticator app's recovery codes do too, so adding either needs a console session begun within
/// the window — a console left open, or a taken cookie, must not give itself a lasting way in.
/// Past it the superuser confirms their password in place (`confirm`), which renews the session
/// (a new token, begun now, ending when the old one would have) rather than signing out: a console
/// sign-out also ends the superuser's impersonations.
public struct StaffRecentSignIn: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// Whether `staff`'s session began longer than `RecentSignIn.window` ago.
    public static func isStale(_ staff: Staff, now: Date) -> Bool {
        RecentSignIn.isStale(begun: staff.session.createdAt, now: now)
    }

    /// Throws `FreshSignInRequired` (console-worded) when `staff`'s session is too old for `act`.
    static func require(_ act: FreshSignInRequired.Act, _ staff: Staff, now: Date) throws {
        guard !isStale(staff, now: now) else { throw FreshSignInRequired(act, onConsole: true) }
    }

    /// What confirming the password came to.
    public enum Confirmation: Sendable {
        /// The renewed session's token, for the cookie.
        case confirmed(token: String)
        case refused(PasswordRefusal)
        /// The session ended meanwhile: sign in again.
        case signedOut
    }

    /// The password again, as one of the superuser's admitted re-checks (`StaffSignIn`'s), then the
    /// session renewed; recorded as `console.reauthenticated` (a refusal with its reason).
    public func confirm(_ staff: Staff, password: String, request: Request) async throws -> Confirmation {
        if let refusal = try await env.staffSignIn.reauthenticate(staff.superuser, password: password, request: request) {
            await env.audit.record(
                .consoleReauthenticationFailed, actor: staff.superuser.id, request: request,
                data: ["reason": .string(refusal.rawValue)])
            return .refused(refusal)
        }
        guard let token = try await env.console.renew(staff, request: request) else { return .signedOut }
        await env.audit.record(.consoleReauthenticated, actor: staff.superuser.id, request: request)
        return .confirmed(token: token)
    }
}
