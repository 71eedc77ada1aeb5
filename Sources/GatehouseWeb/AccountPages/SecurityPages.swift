import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `/account/security`: how the person signs in, a page of sections, each its own partial in
/// `Templates/partials/`: "Change password" (`password-change`, handled here), two-step sign-in
/// (`totp`, handled by `TOTPPages`) and passkeys (`passkeys`, handled by `PasskeyPages`).
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
        try await Self.render(
            env, visit, signedIn, sections: ["totp": try await TOTPPages(env: env).section(visit, signedIn)], errors: errors,
            status: status)
    }

    /// The page from each section's context (`totp`, …); the password and passkey sections' come
    /// from here.
    static func render(
        _ env: PageEnvironment, _ visit: Visit, _ signedIn: SignedIn, sections: [String: Any], errors: FormErrors,
        status: Int = 200
    ) async throws -> Response {
        var page = sections
        page["passkeys"] = try await PasskeyPages(env: env).section(signedIn)
        page["passwordRules"] = env.accounts.passwordRules.summary
        if env.capabilities.contains(.passwordChange) {
            page["passwordChange"] = true
            let change = PasswordChange(env: env.accounts)
            let firstPassword = try await !change.hasPassword(signedIn)
            page["firstPassword"] = firstPassword
            if firstPassword, change.needsFreshSignIn(signedIn) { page["signInAgain"] = Self.signInAgain(.setPassword, signedIn) }
        } else {
            page["passwordChangeUnavailable"] = AuthError.notSupported(.passwordChange).pageMessage
        }
        return env.renderer.page(
            .accountSecurity, visit.context(title: "Security", page.merging(errors.context) { $1 }), status: status)
    }

    /// Why `act` waits for a new sign-in, and where "Sign in again" goes: signing out comes back to
    /// `page` through the sign-in page, the address filled in.
    static func signInAgain(
        _ act: FreshSignInRequired.Act, _ signedIn: SignedIn, page: String = "/account/security"
    ) -> [String: String] {
        [
            "message": FreshSignInRequired(act).message,
            "redirect": URLQuery.path("/auth/sign-in", [("redirect", page), ("email", signedIn.user.email)])
        ]
    }

    /// Checks the current password (throttled like sign-in, sharing its counts), sets the new one,
    /// keeps this browser signed in on the session the backend goes on with, and ends every other
    /// session of the account. An account with no password yet (a passkey's, a provider's) sets
    /// its first one without a current one (`PasswordChange.setFirst`), in a fresh browser session.
    private func changePassword(_ visit: Visit) async throws -> Response {
        guard let signedIn = visit.signedIn else { return signInFirst(visit) }
        var errors = FormErrors()
        guard env.capabilities.contains(.passwordChange) else {
            errors.add("form", AuthError.notSupported(.passwordChange).pageMessage)
            return try await render(visit, signedIn, errors: errors, status: 422)
        }
        let new = try visit.field("new_password")
        if let problem = env.accounts.passwordRules.problem(with: new, userInputs: [signedIn.user.email]) {
            errors.add("new_password", problem)
            return try await render(visit, signedIn, errors: errors, status: 422)
        }
        do {
            let change = PasswordChange(env: env.accounts)
            if try await !change.hasPassword(signedIn) {
                var response = Response.redirect(to: "/account/security?notice=\(Notice.firstPasswordSet.rawValue)")
                let session = try await change.setFirst(new, of: signedIn, request: visit.request)
                try await env.sessions.start(session, replacing: signedIn, request: visit.request, response: &response)
                env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
                return response
            }
            let current = try visit.field("current_password")
            switch try await change.change(
                current: current, new: new, of: signedIn, request: visit.request)
            {
            case .changed:
                return .redirect(to: "/account/security?notice=\(Notice.passwordChanged.rawValue)")
            case .secondStep(let challenge):
                var response = SecondStep.redirect(challenge, continueTo: "/account/security", secure: env.configuration.usesTLS)
                try await env.sessions.end(signedIn, response: &response)
                return response
            case .refused:
                errors.add("current_password", Self.currentPasswordRefused)
                return try await render(visit, signedIn, errors: errors, status: 422)
            }
        } catch AuthError.validation(let fields) {
            errors.add(fields.map { FieldError(field: "new_password", message: $0.message) })
            return try await render(visit, signedIn, errors: errors, status: 422)
        } catch is FreshSignInRequired {
            // The page says why, with the way to sign in again, in place of the form.
            return try await render(visit, signedIn, errors: errors, status: 403)
        } catch AuthError.sessionExpired {
            return signInFirst(visit)
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return try await render(visit, signedIn, errors: errors, status: 502)
        }
    }
}
