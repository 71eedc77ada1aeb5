import Accounts
import AuthCore
import Foundation
import HTTPServer

/// What one-call sign-in (`TestSignIn`) hands out, for the API (`TestSignInRoutes`) and the
/// Testing page alike: the session opened by the way in's own session owner, answered in its
/// shape — the pages' cookie, PocketBase's `{token, record}`, InsForge's auth response (a mobile
/// client's, or a web client's with its refresh cookie and `csrfToken`), Descope's `JWTResponse`,
/// the SuperTokens core's new session.
struct TestSignInAnswers: Sendable {
    let env: PageEnvironment
    let pocketBase: PocketBaseAPI
    let insForge: InsForgeAPI
    let descope: DescopeAPI
    let superTokens: SuperTokensTokens

    /// One sign-in as asked: who, where, and the way's own options.
    struct Asked {
        var email: String
        var way: TestSignIn.Way
        /// The Descope project the JWTs are signed for; the server's first when nil.
        var projectID: String?
        /// InsForge's `client_type`; a mobile client's when nil.
        var clientType: String?
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

    /// The way named `text`, or a refusal naming the ways there are.
    static func way(_ text: String) throws -> TestSignIn.Way {
        guard let way = TestSignIn.Way(rawValue: text) else {
            let ways = TestSignIn.Way.allCases.map(\.rawValue).joined(separator: ", ")
            throw AuthError.validation([FieldError(field: "way", message: "Choose one of \(ways).")])
        }
        return way
    }

    /// Signs the person in as `asked` says (the caller vouches; audited) and answers as that way does.
    /// Unknown options are `.validation` naming the field; no session is opened for them.
    func signIn(_ asked: Asked, caller: TestControlCaller, request: Request) async throws -> Response {
        let project = asked.projectID ?? env.configuration.descopeProjectIDs.first ?? ""
        if asked.way == .descope, !descope.project.knows(project) {
            throw AuthError.validation([
                FieldError(
                    field: "projectId", message: "This server answers for \(descope.project.ids.joined(separator: ", ")).")
            ])
        }
        let client = try asked.clientType.map { text in
            guard let client = ClientType(rawValue: text) else {
                throw AuthError.validation([FieldError(field: "clientType", message: "Send web, mobile, desktop or server.")])
            }
            return client
        }
        let session = try await TestSignIn(env: env.accounts, caller: caller, via: "test-controls").session(
            email: asked.email, way: asked.way, request: request)
        switch asked.way {
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
                session.user, tokens: try await insForge.tokens.issue(for: session, request: request),
                client: client ?? .mobile)
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
