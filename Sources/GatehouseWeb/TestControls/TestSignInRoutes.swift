import Accounts
import AuthCore
import Foundation
import HTTPServer

/// One-call sign-in (README "Test controls"): `POST /_/api/test/sign-in {email, way}` signs the
/// person in as if they had (`TestSignIn`: no credential, no second step) and answers what that way
/// in hands out, opened by its own session owner: the pages' cookie, or the API's tokens in its
/// own shape — PocketBase's `{token, record}`, InsForge's auth response (a mobile client's),
/// Descope's `JWTResponse`, the SuperTokens core's new session.
struct TestSignInRoutes: Sendable {
    let api: TestControlsAPI
    var env: PageEnvironment { api.env }
    let pocketBase: PocketBaseAPI
    let insForge: InsForgeAPI
    let descope: DescopeAPI
    let superTokens: SuperTokensTokens

    struct Body: Decodable {
        var email: String
        var way: String
        /// The Descope project the JWTs are signed for; the server's first when absent.
        var projectId: String?
    }

    /// The pages' answer: the cookie that opens `/account`.
    struct PageCookie: Encodable {
        struct Cookie: Encodable {
            var name: String
            var value: String
            var path: String
            var maxAge: Int?
        }
        var userId: String
        var cookie: Cookie
    }

    func register(on router: inout Router) {
        api.on(&router, .post, "/sign-in") { request, _, caller in
            let body: Body = try request.decodeJSON()
            guard let way = TestSignIn.Way(rawValue: body.way) else {
                let ways = TestSignIn.Way.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIFailure.invalid("way: send one of \(ways).")
            }
            let project = body.projectId ?? env.configuration.descopeProjectIDs.first ?? ""
            if way == .descope, !descope.project.knows(project) {
                throw APIFailure.invalid("projectId: this server answers for \(descope.project.ids.joined(separator: ", ")).")
            }
            let session = try await TestSignIn(env: env.accounts, caller: caller, via: "test-controls").session(
                email: body.email, way: way, request: request)
            return try await answer(session, way: way, project: project, request: request)
        }
    }

    /// `session` opened by `way`'s own session owner, answered in its shape.
    private func answer(_ session: AuthSession, way: TestSignIn.Way, project: String, request: Request) async throws -> Response {
        switch way {
        case .pages:
            let cookie = try await env.sessions.cookie(for: session, replacing: nil, request: request)
            return try .json(
                PageCookie(
                    userId: session.user.id.rawValue,
                    cookie: .init(name: cookie.name, value: cookie.value, path: cookie.path, maxAge: cookie.maxAge)))
        case .pocketbase:
            return try await PocketBaseAuthRoutes(api: pocketBase).answer(.signedIn(session), request: request)
        case .insforge:
            return try await insForge.delivery.response(
                session.user, tokens: try await insForge.tokens.issue(for: session, request: request), client: .mobile)
        case .descope:
            let call = DescopeAPI.Call(request: request, project: project, refreshJwt: nil, body: [:], started: env.clock())
            return try await descope.signedIn(session, amr: [], call: call, firstSeen: false)
        case .supertokens:
            let opened = try await superTokens.sessions.openNamed(
                session, request: request, lifetime: superTokens.accessLifetime)
            return try .json(try superTokens.mint(opened, userData: [:], antiCsrf: nil, dynamic: true).body())
        }
    }
}
