import Accounts
import Foundation
import HTTPServer

extension Router {
    /// A console page: a page (CSRF, forms) that also needs a signed-in superuser. Without one,
    /// GETs go to the console sign-in and come back; anything else is refused.
    mutating func consolePage(
        _ method: HTTPMethod, _ path: String, _ env: PageEnvironment,
        _ handler: @escaping @Sendable (Visit, Staff) async throws -> Response
    ) {
        page(method, path, env) { visit in
            guard let staff = await env.console.fromCookie(visit.request) else {
                guard method == .get else {
                    return env.renderer.errorPage(
                        status: 403, heading: "Signed out",
                        message: "Your console session has ended. Sign in again and retry.")
                }
                return .redirect(to: URLQuery.path("/_/", [("redirect", visit.request.rawPathAndQuery)]))
            }
            return try await handler(visit, staff)
        }
    }

    /// A JSON admin endpoint: needs `Authorization: Bearer` with a console token (from
    /// `POST /_/api/auth`); cookies are not accepted here.
    mutating func adminAPI(
        _ method: HTTPMethod, _ path: String, _ env: PageEnvironment,
        _ handler: @escaping @Sendable (Request, PathParameters, Staff) async throws -> Response
    ) {
        on(method, path) { request, parameters in
            guard let staff = await env.console.fromBearer(request) else {
                return APIError.response(
                    status: 401, code: "UNAUTHORIZED",
                    message: "Send a superuser token as Authorization: Bearer TOKEN (see POST /_/api/auth).")
            }
            return try await handler(request, parameters, staff)
        }
    }
}

extension Request {
    /// The path with its query string, as a local redirect target.
    var rawPathAndQuery: String {
        query.isEmpty
            ? path
            : path + "?"
                + query.map { "\($0.name)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
                .joined(separator: "&")
    }
}

extension Visit {
    /// The console layout's keys: the signed-in superuser, the active nav item and the backend.
    func consoleContext(
        title: String, staff: Staff, nav: ConsoleNav, backendName: String,
        _ page: [String: Any] = [:]
    ) -> [String: Any] {
        context(
            title: title,
            [
                "superuser": ["email": staff.superuser.email],
                "nav": [
                    "users": nav == .users, "testUsers": nav == .testUsers, "audit": nav == .auditLog, "mailbox": nav == .mailbox,
                    "providers": nav == .providers, "ownSecurity": nav == .ownSecurity, "webhooks": nav == .webhooks,
                    "testing": nav == .testing
                ],
                "backendName": backendName
            ].merging(page) { $1 })
    }
}

/// Where a console page sits: one of the navigation's sections, or the signed-in superuser's own
/// two-step sign-in and passkeys (the link under their address), which is none of them.
enum ConsoleNav {
    case users, testUsers, auditLog, mailbox, providers, ownSecurity, webhooks, testing
}
