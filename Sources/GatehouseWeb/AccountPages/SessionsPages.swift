import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `/account/sessions`: where the person is signed in — each browser or app session with its
/// device, address, start and last use, this one marked — and signing out of one, of every other,
/// or of all of them (Rownd's `signOut(scope: .all)`). These are Gatehouse's own sessions, so the
/// page works the same whatever backend keeps the account.
struct SessionsPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.get, "/account/sessions", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst(visit) }
            return try await render(visit, signedIn)
        }
        router.page(.post, "/account/sessions/:id/sign-out", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst(visit) }
            guard let id = try? visit.parameters.require("id", as: Int64.self),
                try await OwnSessions(env: env.accounts).signOut(id, of: signedIn, request: visit.request)
            else { return .redirect(to: "/account/sessions") }
            if id == signedIn.session.id { return try await signedOut(visit) }
            return .redirect(to: "/account/sessions?notice=\(Notice.sessionSignedOut.rawValue)")
        }
        router.page(.post, "/account/sessions/sign-out-others", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst(visit) }
            _ = try await OwnSessions(env: env.accounts).signOutOthers(of: signedIn, request: visit.request)
            return .redirect(to: "/account/sessions?notice=\(Notice.otherSessionsSignedOut.rawValue)")
        }
        router.page(.post, "/account/sessions/sign-out-all", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst(visit) }
            _ = try await OwnSessions(env: env.accounts).signOutEverywhere(signedIn, request: visit.request)
            return try await signedOut(visit)
        }
    }

    private func signInFirst(_ visit: Visit) -> Response {
        .redirect(to: URLQuery.path("/auth/sign-in", [("redirect", visit.request.path)]))
    }

    /// This browser's session is gone: clear its cookie and go to the sign-in page.
    private func signedOut(_ visit: Visit) async throws -> Response {
        var response = Response.redirect(to: "/auth/sign-in?notice=\(Notice.signedOutEverywhere.rawValue)")
        try await env.sessions.end(visit.signedIn, response: &response)
        env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
        return response
    }

    private func render(_ visit: Visit, _ signedIn: SignedIn) async throws -> Response {
        let sessions = try await OwnSessions(env: env.accounts).live(of: signedIn)
        let rows: [[String: Any]] = sessions.map { session in
            [
                "id": String(session.id),
                "device": session.userAgent.map(DeviceName.describe) ?? "Unknown device",
                "ip": session.ip ?? "—",
                "createdAt": DisplayDate.dateTime(session.createdAt),
                "lastUsedAt": DisplayDate.dateTime(session.lastUsedAt),
                "current": session.id == signedIn.session.id,
                "impersonator": session.impersonator ?? ""
            ]
        }
        return env.renderer.page(
            .sessions,
            visit.context(title: "Where you're signed in", ["sessions": rows, "others": sessions.count > 1]))
    }
}
