import Accounts
import AuthCore
import Foundation
import HTTPServer

/// "Forgot password?" (issue 10, item 1):
/// - `/auth/forgot-password`: asks for the address; every well-formed address — known, unknown,
///   throttled — gets the same redirect, at no sooner than the same floor, and only known ones a mail
///   (`MailRequests`).
/// - `/auth/reset-password?email=`: "check your mail"; when the backend mails codes
///   (`verificationMode == .code`) it also takes the code, traded for a reset token
///   (`/auth/reset-password/code`).
/// - `/auth/reset-password?token=`: the mailed link, a new-password form with the token hidden in
///   it. The GET spends nothing, so a mail scanner opening the link cannot burn it; a link already
///   spent, superseded or expired gets "this link can't be used" and the way to a new one instead.
/// - `POST /auth/reset-password`: sets the password; the backend ends every session of the account,
///   Gatehouse ends its browser sessions too, and the person is signed in afresh.
struct PasswordResetPages: Sendable {
    let env: PageEnvironment

    /// The one answer to a code that is wrong, spent, dead or for an unknown address.
    static let codeRefused = VerificationPages.codeRefused

    func register(on router: inout Router) {
        router.page(.get, "/auth/forgot-password", env) { visit in
            guard supported else { return unsupported(visit) }
            return renderRequest(visit, email: try visit.query("email") ?? "", errors: FormErrors())
        }
        router.page(.post, "/auth/forgot-password", env, request)
        router.page(.get, "/auth/reset-password", env) { visit in
            guard supported else { return unsupported(visit) }
            if let token = try visit.query("token"), !token.isEmpty {
                // A spent or dead link says so before the form, not after it is filled in.
                if await MailedCodeChecks(env: env.accounts).resetLinkWorks(token: token) == false {
                    return linkRefused(visit)
                }
                return renderNewPassword(visit, token: token, errors: FormErrors())
            }
            return renderCheckMail(visit, email: try visit.query("email") ?? "", code: "", errors: FormErrors())
        }
        router.page(.post, "/auth/reset-password/code", env, submitCode)
        router.page(.post, "/auth/reset-password", env, setPassword)
    }

    private var supported: Bool { env.capabilities.contains(.passwordReset) }

    /// Codes are offered only where the backend mails them; asked, never inferred from its type.
    private var mailsCodes: Bool { supported && env.verificationMode == .code }

    private func unsupported(_ visit: Visit) -> Response {
        env.renderer.errorPage(
            visit, status: 501, title: "Password reset", heading: "Password reset is not available",
            message: AuthError.notSupported(.passwordReset).pageMessage)
    }

    // MARK: Asking for a mail

    private func renderRequest(_ visit: Visit, email: String, errors: FormErrors, status: Int = 200) -> Response {
        env.renderer.page(
            .forgotPassword,
            visit.context(title: "Reset your password", ["form": ["email": email]].merging(errors.context) { $1 }),
            status: status)
    }

    private func request(_ visit: Visit) async throws -> Response {
        guard supported else { return unsupported(visit) }
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(email) else {
            var errors = FormErrors()
            errors.add("email", "Enter the email address of your account.")
            return renderRequest(visit, email: email, errors: errors, status: 422)
        }
        // A held request (the source's or the address's budget spent) is answered like any other,
        // without a mail, after the same floor (`MailRequests`).
        do {
            _ = try await MailRequests(env: env.accounts, via: nil).passwordReset(email: email, request: visit.request)
        } catch let error as AuthError {
            // Backends answer alike for unknown addresses, so this says nothing about the address.
            env.logger.error("password reset not requested", metadata: ["error": "\(error)"])
            var errors = FormErrors()
            errors.add("form", error.pageMessage)
            return renderRequest(visit, email: email, errors: errors, status: 502)
        }
        return .redirect(to: URLQuery.path("/auth/reset-password", [("email", email)]))
    }

    // MARK: Check your mail, and the code

    private func renderCheckMail(_ visit: Visit, email: String, code: String, errors: FormErrors, status: Int = 200)
        -> Response
    {
        env.renderer.page(
            .resetPasswordSent,
            visit.context(
                title: "Check your email",
                [
                    "email": email, "form": ["code": code], "codeMode": mailsCodes,
                    "againURL": URLQuery.path("/auth/forgot-password", email.isEmpty ? [] : [("email", email)])
                ].merging(errors.context) { $1 }), status: status)
    }

    private func submitCode(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let code = try visit.field("code").filter { !$0.isWhitespace }
        guard mailsCodes else { return unsupported(visit) }
        var errors = FormErrors()
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            errors.add("code", "Enter the 6-digit code from the email.")
            return renderCheckMail(visit, email: email, code: code, errors: errors, status: 422)
        }
        do {
            let token = try await MailedCodeChecks(env: env.accounts).exchangeResetCode(
                email: email, code: code, request: visit.request)
            return renderNewPassword(visit, token: token, errors: FormErrors())
        } catch AuthError.rateLimited(let wait) {
            errors.add("code", AuthError.rateLimited(retryAfter: wait).pageMessage)
            return renderCheckMail(visit, email: email, code: code, errors: errors, status: 429).retrying(after: wait)
        } catch AuthError.invalidCode, AuthError.codeExpired {
            // Answered below, alike.
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return renderCheckMail(visit, email: email, code: code, errors: errors, status: 502)
        }
        errors.add("code", Self.codeRefused)
        return renderCheckMail(visit, email: email, code: "", errors: errors, status: 422)
    }

    // MARK: The new password

    private func renderNewPassword(_ visit: Visit, token: String, errors: FormErrors, status: Int = 200) -> Response {
        env.renderer.page(
            .resetPassword,
            visit.context(
                title: "Choose a new password",
                [
                    "token": token, "passwordRules": env.accounts.passwordRules.summary,
                    "passkeys": env.capabilities.contains(.passkeys)
                ].merging(errors.context) { $1 }),
            status: status)
    }

    private func linkRefused(_ visit: Visit) -> Response {
        env.renderer.page(
            .message,
            visit.context(
                title: "Link not valid",
                [
                    "heading": "This reset link can't be used", "problem": true,
                    "message": "It is wrong, has expired, or was already used. Ask for a new email.",
                    "actionURL": "/auth/forgot-password", "actionLabel": "Reset your password"
                ]), status: 400)
    }

    private func setPassword(_ visit: Visit) async throws -> Response {
        guard supported else { return unsupported(visit) }
        let token = try visit.field("token")
        let password = try visit.field("password")
        guard !token.isEmpty else { return linkRefused(visit) }
        var errors = FormErrors()
        if let problem = env.accounts.passwordRules.problem(with: password) {
            errors.add("password", problem)
            return renderNewPassword(visit, token: token, errors: errors, status: 422)
        }
        let user: User
        do {
            user = try await MailedCodeChecks(env: env.accounts).completeReset(
                token: token, newPassword: password,
                removingPasskeys: try visit.form.single("remove_passkeys") == "on", request: visit.request)
        } catch AuthError.rateLimited(let wait) {
            errors.add("form", AuthError.rateLimited(retryAfter: wait).pageMessage)
            return renderNewPassword(visit, token: token, errors: errors, status: 429).retrying(after: wait)
        } catch AuthError.validation(let fields) {
            errors.add(fields.map { FieldError(field: "password", message: $0.message) })
            return renderNewPassword(visit, token: token, errors: errors, status: 422)
        } catch let error as AuthError {
            switch error {
            case .invalidCode, .codeExpired:
                return linkRefused(visit)
            default:
                errors.add("form", error.pageMessage)
                return renderNewPassword(visit, token: token, errors: errors, status: 502)
            }
        }
        return try await signInAfresh(visit, user: user, password: password)
    }

    /// Signs in with the new password. A second step the account asks for goes through `SecondStep`;
    /// anything else that stops the sign-in (an address still to verify) leaves the person at the
    /// sign-in page with the new password set.
    private func signInAfresh(_ visit: Visit, user: User, password: String) async throws -> Response {
        var response: Response
        do {
            switch try await PasswordSignIn(env: env.accounts, via: nil).attempt(
                email: user.email, password: password, request: visit.request)
            {
            case .signedIn(let session):
                response = .redirect(
                    to: AppFlow.landing(visit.request, otherwise: "/account?notice=\(Notice.passwordReset.rawValue)"))
                try await env.sessions.start(session, replacing: visit.signedIn, request: visit.request, response: &response)
                env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
                return response
            case .secondStep(let challenge):
                response = SecondStep.redirect(
                    challenge, continueTo: AppFlow.landing(visit.request, otherwise: "/account"),
                    secure: env.configuration.usesTLS)
            case .refused(let refusal):
                response = signInPage(after: user, refusal)
            }
        } catch let error as AuthError {
            response = signInPage(after: user, error)
        }
        try await env.sessions.end(visit.signedIn, response: &response)
        env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
        return response
    }

    /// The sign-in page for `user`, the new password set, when signing in with it stopped (`why`).
    private func signInPage(after user: User, _ why: Any) -> Response {
        env.logger.notice("no sign-in after password reset", metadata: ["error": "\(why)"])
        return .redirect(
            to: URLQuery.path("/auth/sign-in", [("email", user.email), ("notice", Notice.passwordResetSignIn.rawValue)]))
    }
}
