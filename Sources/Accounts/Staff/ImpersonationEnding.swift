import Foundation
import HTTPServer
import Store

/// The one place an impersonation ends and is audited as ended, however it ends: the banner's
/// *Stop*, signing out of the impersonated session, or the superuser signing out of the console
/// (which must not leave sessions they opened working for up to an hour).
public struct ImpersonationEnding: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    public enum Reason: String {
        case stopped
        case signedOut = "signed_out"
        case consoleSignedOut = "console_signed_out"
    }

    /// Ends the browser's impersonation session and clears its cookie.
    public func end(_ signedIn: SignedIn, reason: Reason, request: Request, response: inout Response) async throws {
        try await env.sessions.end(signedIn, response: &response)
        await recordEnded(signedIn, reason: reason, request: request)
    }

    /// Ends every live impersonation `staff` started: browser sessions and API tokens.
    public func endAll(startedBy staff: Staff, request: Request) async throws {
        let ended = try await env.database.revokeImpersonations(by: staff.superuser.email, at: env.clock())
        for session in ended where session.userAgent != NewSession.browserBackingUserAgent {
            await env.audit.record(
                .impersonationStopped, actor: staff.superuser.id, subject: session.userID.rawValue, request: request,
                data: ["reason": .string(Reason.consoleSignedOut.rawValue)])
        }
    }

    /// `impersonation.stopped` for an impersonation session that ended (nothing for the person's own
    /// session); names the superuser by id, as `impersonation.started` does.
    func recordEnded(_ signedIn: SignedIn, reason: Reason, request: Request) async {
        guard let impersonator = signedIn.session.impersonator else { return }
        let actor = (try? await env.database.superuser(email: impersonator))?.id ?? impersonator
        await env.audit.record(
            .impersonationStopped, actor: actor, subject: signedIn.user.id.rawValue, request: request,
            data: ["reason": .string(reason.rawValue)])
    }
}
