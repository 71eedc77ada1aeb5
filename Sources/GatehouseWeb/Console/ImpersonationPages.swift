import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// Starting and stopping impersonation from the console: "Open as this user" (a real browser
/// session as the user, with a banner on every page that says why) and "Copy API token" (an SDK
/// token). Both are time-limited (15 min by default, at most 1 h), never refreshable, and audited
/// with the reason staff gave.
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
                impersonator: ticket.actor, reason: ticket.reason, lifetime: ticket.duration, response: &response)
            return response
        }
        router.page(.post, "/_/impersonation/stop", env) { visit in
            guard let signedIn = visit.signedIn, visit.isImpersonating else { return .redirect(to: "/") }
            var response = Response.redirect(
                to: ConsoleURL.user(signedIn.user.id) + "?notice=\(Notice.impersonationStopped.rawValue)")
            try await ImpersonationEnding(env: env.accounts).end(
                signedIn, reason: .stopped, request: visit.request, response: &response)
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
        switch try await ImpersonationStart(env: env.accounts, staff: staff, request: visit.request, via: "console").start(
            user, delivery: token ? .backendToken : .browserSession, duration: TimeInterval(minutes * 60),
            reason: try visit.field("reason"), ticket: try visit.field("ticket"), impersonating: visit.isImpersonating)
        {
        case .refused(let refusal): throw ConsoleError.refused(refusal.message)
        case .unexplained(let problem):
            var errors = FormErrors()
            errors.add(problem == .ticketNotALink ? "ticket" : "reason", problem.message)
            return try await userPage.page(visit, staff, user: user, errors: errors, status: 400)
        case .started(let session): started = session
        }
        if token {
            return try await userPage.page(
                visit, staff, user: user, issuedToken: (started.session.accessToken, started.expiresAt))
        }
        var response = Response.redirect(to: "/account")
        try await env.sessions.start(
            started.session, replacing: visit.signedIn, request: visit.request,
            impersonator: staff.superuser.email, reason: started.reason, lifetime: started.duration, response: &response)
        return response
    }
}
