import AuthCore
import Foundation
import HTTPServer

/// `/account/security`: how the person signs in, a page of sections, each its own partial in
/// `Templates/partials/`: "Change password" (`password-change`, handled here) and two-step sign-in
/// (`totp`, handled by `TOTPPages`).
struct SecurityPages: Sendable {
    let env: PageEnvironment

    /// The one answer to a current password that is wrong — or not checked because the account or
    /// this source is throttled, as at sign-in.
    static let currentPasswordRefused = "That password doesn't match your current one."

    func register(on router: inout Router) {
        router.page(.get, "/account/security", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst(visit) }
            return try await render(visit, signedIn, errors: FormErrors())
        }
        router.page(.post, "/account/security/password", env, changePassword)
    }

    private func signInFirst(_ visit: Visit) -> Response {
        .redirect(to: URLQuery.path("/auth/sign-in", [("redirect", "/account/security")]))
    }

    /// The whole page, with the errors of the form that was posted.
    func render(_ visit: Visit, _ signedIn: SignedIn, errors: FormErrors, status: Int = 200) async throws -> Response {
        Self.render(
            env, visit, sections: ["totp": try await TOTPPages(env: env).section(visit, signedIn)], errors: errors,
            status: status)
    }

    /// The page from each section's context (`totp`, …); the password section's comes from here.
    static func render(
        _ env: PageEnvironment, _ visit: Visit, sections: [String: Any], errors: FormErrors, status: Int = 200
    ) -> Response {
        var page = sections
        page["passwordRules"] = PasswordPolicy.summary
        if env.capabilities.contains(.passwordChange) {
            page["passwordChange"] = true
        } else {
            page["passwordChangeUnavailable"] = AuthError.notSupported(.passwordChange).pageMessage
        }
        return env.renderer.page(
            .accountSecurity, visit.context(title: "Security", page.merging(errors.context) { $1 }), status: status)
    }

    /// Checks the current password (throttled like sign-in, sharing its counts), sets the new one,
    /// keeps this browser signed in on the session the backend goes on with, and ends every other
    /// session of the account.
    private func changePassword(_ visit: Visit) async throws -> Response {
        guard let signedIn = visit.signedIn else { return signInFirst(visit) }
        if visit.isImpersonating { throw ImpersonationRefusal.credentialChange }
        var errors = FormErrors()
        guard env.capabilities.contains(.passwordChange) else {
            errors.add("form", AuthError.notSupported(.passwordChange).pageMessage)
            return try await render(visit, signedIn, errors: errors, status: 422)
        }
        let current = try visit.field("current_password")
        let new = try visit.field("new_password")
        if let problem = PasswordPolicy.problem(with: new) {
            errors.add("new_password", problem)
            return try await render(visit, signedIn, errors: errors, status: 422)
        }
        let request = visit.request
        // The current password is checked like a sign-in's, admitted before the hash.
        let attempt = await env.budgets.beginPasswordTry(
            .signIn, email: signedIn.user.email, password: current, ip: request.remoteAddress)
        var reason = "rate_limited"
        if attempt.admission == .open {
            do {
                let session = try await env.pageBackend.changePassword(
                    currentPassword: current, newPassword: new, session: signedIn.backendSession)
                await env.budgets.settle(attempt, .right)
                return try await changed(visit, signedIn, session: session)
            } catch AuthError.invalidCredentials {
                reason = "invalid_credentials"
            } catch AuthError.validation(let fields) {
                await env.budgets.settle(attempt, .none)
                errors.add(fields.map { FieldError(field: "new_password", message: $0.message) })
                return try await render(visit, signedIn, errors: errors, status: 422)
            } catch AuthError.sessionExpired {
                await env.budgets.settle(attempt, .none)
                return signInFirst(visit)
            } catch AuthError.mfaRequired(let challenge) {
                // The password changed, and the backend asks a second step of the fresh sign-in.
                await env.budgets.settle(attempt, .right)
                var response = SecondStep.redirect(
                    challenge, continueTo: "/account/security", secure: env.configuration.usesTLS)
                try await env.sessions.end(signedIn, response: &response)
                return response
            } catch let error as AuthError {
                await env.budgets.settle(attempt, .none)
                errors.add("form", error.pageMessage)
                return try await render(visit, signedIn, errors: errors, status: 502)
            }
        }
        await env.audit.recordOwnAct(.passwordChangeFailed, of: signedIn, request: request, data: ["reason": .string(reason)])
        errors.add("current_password", Self.currentPasswordRefused)
        return try await render(visit, signedIn, errors: errors, status: 422)
    }

    private func changed(_ visit: Visit, _ signedIn: SignedIn, session: AuthSession) async throws -> Response {
        try await env.sessions.replaceBackendSession(of: signedIn, with: session)
        // The backend ended the sessions it keeps; these are Gatehouse's browser sessions.
        let others = try await env.database.revokeSessions(
            userID: signedIn.user.id, keeping: signedIn.session.id, at: env.clock())
        await env.audit.recordOwnAct(
            .passwordChanged, of: signedIn, request: visit.request, data: ["others_signed_out": .number(Double(others))])
        return .redirect(to: "/account/security?notice=\(Notice.passwordChanged.rawValue)")
    }
}
