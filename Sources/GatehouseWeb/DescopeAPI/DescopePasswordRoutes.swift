import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `auth/password/…`: sign-up (JWTs at once, the address still to verify), sign-in, update (with
/// the refresh JWT), replace (with the old password), reset (a mail: a sign-in link to the app's
/// `redirectUrl`, or Gatehouse's reset mail) and the policy.
struct DescopePasswordRoutes: Sendable {
    let api: DescopeAPI
    private var accounts: Accounts { api.env.accounts }

    func register(on router: inout Router) {
        api.on(&router, .post, "/v1/auth/password/signup") { call in
            let (email, password) = (try call.loginID(), try call.required("password"))
            let user = call.userProfile()
            let outcome = try await SignUp(env: accounts, via: DescopeAPI.via, policy: .descopeAPI).attempt(
                SignUpRequest(email: email, password: password, name: user["name"]?.stringValue),
                profile: user.filter { $0.key != "name" }, for: .browserSession, request: call.request)
            guard let session = outcome.session else { throw AuthError.emailNotVerified(email: email) }
            return try await api.signedIn(session, amr: ["pwd"], call: call, firstSeen: true)
        }
        api.on(&router, .post, "/v1/auth/password/signin") { call in
            let (email, password) = (try call.loginID(), try call.required("password"))
            return try await signIn(email: email, password: password, call: call)
        }
        api.on(&router, .post, "/v1/auth/password/update") { call in
            let signedIn = try await api.holder(call).signedIn
            try api.requireOwnLoginID(call, signedIn)
            try await PasswordChange(env: accounts, via: DescopeAPI.via).setWithoutCurrent(
                try call.required("newPassword"), of: signedIn, policy: .descopeAPI, request: call.request)
            return try .json([String: String]())
        }
        api.on(&router, .post, "/v1/auth/password/replace") { call in
            let email = try call.loginID()
            let (old, new) = (try call.required("oldPassword"), try call.required("newPassword"))
            return try await replace(email: email, old: old, new: new, call: call)
        }
        api.on(&router, .post, "/v1/auth/password/reset") { call in
            let email = try call.loginID()
            // With an allowed `redirectUrl`, a sign-in link to it (the app verifies its `t` with
            // `magiclink/verify`, then sets the password with `password/update`); without one,
            // Gatehouse's own reset mail (a code and a link to its reset page). The same answer for
            // every address, and the address's budget taken whether it has an account or not.
            let link = try await api.appLink(call)
            if case .held(let refusal) = try await MailRequests(env: accounts, via: DescopeAPI.via).passwordReset(
                email: email, appURL: link, request: call.request)
            {
                throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
            }
            return try .json(ResetAnswer(resetMethod: "email", maskedEmail: MaskedEmail(email).maskedEmail))
        }
        api.on(&router, .get, "/v1/auth/password/policy") { _ in
            try .json(PasswordPolicyBody())
        }
    }

    private func signIn(email: String, password: String, call: DescopeAPI.Call) async throws -> Response {
        try await api.answer(
            try await PasswordSignIn(env: accounts, via: DescopeAPI.via, policy: .descopeAPI).attempt(
                email: email, password: password, request: call.request), amr: ["pwd"], call: call, keepingStepFor: email)
    }

    /// The old password signs in (a session row like any sign-in's), then changes to the new one
    /// through the security page's owner: every other session of the account ends.
    private func replace(email: String, old: String, new: String, call: DescopeAPI.Call) async throws -> Response {
        let result = try await PasswordSignIn(env: accounts, via: DescopeAPI.via, policy: .descopeAPI).attempt(
            email: email, password: old, request: call.request)
        guard case .signedIn(let session) = result else { return try await api.answer(result, amr: ["pwd"], call: call) }
        let issued = try await api.tokens.issue(for: session, project: call.project, amr: ["pwd"], request: call.request)
        guard let holder = await api.tokens.holder(of: issued.refreshJwt, project: call.project) else {
            throw AuthError.sessionExpired
        }
        switch try await PasswordChange(env: accounts, via: DescopeAPI.via).change(
            current: old, new: new, of: holder.signedIn, request: call.request)
        {
        case .changed(let renewed, _):
            return try api.jwtResponse(
                session: issued.sessionJwt, refresh: issued.refreshJwt, expiresAt: issued.refreshExpiresAt,
                user: DescopeUser(renewed.user, amr: ["pwd"]), firstSeen: false)
        case .secondStep(let challenge): return try await api.answer(.secondStep(challenge), amr: ["pwd"], call: call)
        case .refused: throw AuthError.invalidCredentials
        }
    }
}

/// What `password/reset` answers: how the reset travels and where.
private struct ResetAnswer: Encodable {
    var resetMethod: String
    var maskedEmail: String
}
