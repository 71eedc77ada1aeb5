import AuthCore
import Foundation
import HTTPServer

/// A test suite signs a person in with one call, no credential and no second step (the caller —
/// a superuser or a management key — vouches): the session every way in then opens its own
/// credential on (`BrowserSessions`, `AppSessions`), audited as a test sign-in.
public struct TestSignIn: Sendable {
    let env: Accounts
    let caller: TestControlCaller
    /// Names the way in in the audit data.
    let via: String

    /// Where the person is signed in: the account pages or one of the compatible APIs.
    public enum Way: String, CaseIterable, Sendable {
        case pages, pocketbase, insforge, descope, supertokens
    }

    public init(env: Accounts, caller: TestControlCaller, via: String) {
        (self.env, self.caller, self.via) = (env, caller, via)
    }

    /// A backend session for the account at `email`, as if it had signed in (`way`, when named,
    /// goes into the audit row); `.userNotFound` for no account, `.invalidCredentials` for a
    /// disabled one.
    public func session(email: String, way: Way? = nil, request: Request) async throws -> AuthSession {
        guard let user = try await env.backend.admin.user(email: email) else { throw AuthError.userNotFound }
        guard !user.disabled else { throw AuthError.invalidCredentials }
        let session = try await env.pageBackend.admin.openSession(for: user.id)
        var data = caller.auditData()
        data["via"] = .string(via)
        if let way { data["way"] = .string(way.rawValue) }
        await env.audit.record(.testSignIn, actor: user.id.rawValue, subject: user.id.rawValue, request: request, data: data)
        return session
    }
}
