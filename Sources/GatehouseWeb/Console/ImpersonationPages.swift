import AuthCore
import Foundation
import HTTPServer
import Secrets

/// What an impersonation session may not do: change how the user signs in (DESIGN.md: no credential
/// changes while impersonating), sign the user out of their own devices, or sign the user in to an
/// app (the app's session would outlive the impersonation and name no superuser).
enum ImpersonationRefusal: HTTPResponseError {
    case credentialChange
    case sessionChange
    case appSignIn

    var status: Int { 403 }
    var message: String {
        switch self {
        case .credentialChange: "Sign-in methods can't be changed while viewing as this user. Stop impersonating first."
        case .sessionChange: "The user's sessions can't be signed out while viewing as this user. Use the console instead."
        case .appSignIn:
            "Apps can't be signed in while impersonating this user: the app would get the user's own session. "
                + "Stop impersonating first."
        }
    }
}

/// Starting and stopping impersonation from the console: "Open as this user" (a real browser
/// session as the user, with a banner on every page) and "Copy API token" (an SDK token). Both are
/// time-limited (15 min by default, at most 1 h), never refreshable, and audited.
struct ImpersonationPages: Sendable {
    let env: PageEnvironment
    static let defaultMinutes = 15

    func register(on router: inout Router) {
        router.consolePage(.post, "/_/users/:id/impersonate", env, start)
        router.page(.get, "/_/impersonation/open", env) { visit in
            guard let ticket = await env.impersonationTickets.redeem(try visit.query("ticket") ?? "") else {
                return env.renderer.errorPage(
                    status: 410, heading: "Link expired",
                    message: "Impersonation links work once, within a minute of being issued.")
            }
            var response = Response.redirect(to: "/account")
            try await env.sessions.start(
                ticket.session, replacing: visit.signedIn, request: visit.request,
                impersonator: ticket.actor, lifetime: ticket.duration, response: &response)
            return response
        }
        router.page(.post, "/_/impersonation/stop", env) { visit in
            guard let signedIn = visit.signedIn, visit.isImpersonating else { return .redirect(to: "/") }
            var response = Response.redirect(
                to: ConsoleURL.user(signedIn.user.id) + "?notice=\(Notice.impersonationStopped.rawValue)")
            try await ImpersonationEnding(env: env).end(signedIn, reason: .stopped, request: visit.request, response: &response)
            return response
        }
    }

    private func start(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let userPage = ConsoleUserPage(env: env)
        let user = try await userPage.loadUser(visit, staff)
        let minutes = Int(try visit.field("duration")) ?? Self.defaultMinutes
        guard (1...60).contains(minutes) else { throw ConsoleError.refused("Impersonation lasts 1 to 60 minutes.") }
        let token = try visit.field("mode") == "token"
        let started: ImpersonationStart.Started
        switch try await ImpersonationStart(env: env, staff: staff, request: visit.request, via: "console").start(
            user, delivery: token ? .backendToken : .browserSession, duration: TimeInterval(minutes * 60),
            impersonating: visit.isImpersonating)
        {
        case .refused(let refusal): throw ConsoleError.refused(refusal.message)
        case .started(let session): started = session
        }
        if token {
            return try await userPage.page(
                visit, staff, user: user, issuedToken: (started.session.accessToken, started.expiresAt))
        }
        var response = Response.redirect(to: "/account")
        try await env.sessions.start(
            started.session, replacing: visit.signedIn, request: visit.request,
            impersonator: staff.superuser.email, lifetime: started.duration, response: &response)
        return response
    }
}
