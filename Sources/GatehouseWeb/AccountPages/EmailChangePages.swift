import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `/account/email` (ask to move the account to a new address, with the current password) and
/// `/auth/confirm-email?token=` (the mailed link: a page with a button, since mail scanners open
/// links; the POST confirms). Which sessions survive a confirmation:
///
/// - the confirming browser, when it is signed in as the account whose address changed: it stays
///   signed in (a new browser session on the kept backend session, so its cookie is rotated as
///   after any credential change);
/// - every other browser session, app token and backend session of that account ends;
/// - a browser signed in as another account is left as it was.
struct EmailChangePages: Sendable {
    /// The one answer to a wrong (or, while throttled, unchecked) current password: the person is
    /// signed in and typed only a password, so the sign-in's "email and password" wording would mislead.
    static let passwordRefused = "That password isn't right."

    let env: PageEnvironment

    /// Every request answers no sooner than this after it arrived: a free address costs a token
    /// write and two mails, a taken one a single mail, and the difference must not show.
    static let requestAnswerFloor: Duration = .milliseconds(150)

    func register(on router: inout Router) {
        router.page(.get, "/account/email", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst(visit) }
            return render(visit, signedIn.user, email: "", errors: FormErrors())
        }
        router.page(.post, "/account/email", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst(visit) }
            let floor = ContinuousClock.now.advanced(by: Self.requestAnswerFloor)
            let response = try await request(visit, signedIn)
            try? await Task.sleep(until: floor)
            return response
        }
        router.page(.get, "/auth/confirm-email", env) { visit in
            renderConfirm(visit, token: try visit.query("token") ?? "", errors: FormErrors())
        }
        router.page(.post, "/auth/confirm-email", env, confirm)
    }

    private func signInFirst(_ visit: Visit) -> Response {
        .redirect(to: URLQuery.path("/auth/sign-in", [("redirect", "/account/email")]))
    }

    private func render(_ visit: Visit, _ user: User, email: String, errors: FormErrors, status: Int = 200) -> Response {
        var page: [String: Any] = ["currentEmail": user.email, "form": ["email": email]]
        if !env.capabilities.contains(.emailChange) {
            page["unsupported"] = AuthError.notSupported(.emailChange).pageMessage
        }
        return env.renderer.page(
            .accountEmail, visit.context(title: "Change your email", page.merging(errors.context) { $1 }), status: status)
    }

    /// Wrong password and a throttled try read alike (the sign-in's message); a bad address is
    /// named on its field with the input kept; a taken address answers like a free one (the backend
    /// sees to that).
    private func request(_ visit: Visit, _ signedIn: SignedIn) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try visit.field("password")
        let user = signedIn.user
        let request = visit.request
        var errors = FormErrors()
        guard EmailAddress.isPlausible(email) else {
            errors.add("email", "Enter a valid email address.")
            return render(visit, user, email: email, errors: errors, status: 422)
        }
        do {
            switch try await EmailChangeRequest(env: env.accounts, via: nil).request(
                newEmail: email, password: password, by: signedIn, request: request)
            {
            case .requested:
                return .redirect(to: "/account?notice=\(Notice.emailChangeRequested.rawValue)")
            case .throttled(let wait):
                errors.add("form", AuthError.rateLimited(retryAfter: wait).pageMessage)
                return render(visit, user, email: email, errors: errors, status: 429).retrying(after: wait)
            case .passwordRefused:
                break
            }
        } catch AuthError.validation(let fields) {
            errors.add(fields)
            return render(visit, user, email: email, errors: errors, status: 422)
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return render(visit, user, email: email, errors: errors, status: 502)
        }
        errors.add("password", Self.passwordRefused)
        return render(visit, user, email: email, errors: errors, status: 401)
    }

    private func renderConfirm(_ visit: Visit, token: String, errors: FormErrors, status: Int = 200) -> Response {
        env.renderer.page(
            .confirmEmail,
            visit.context(
                title: "Confirm your new email",
                ["token": token, "asksPassword": env.confirmsEmailChangeWithPassword].merging(errors.context) { $1 }),
            status: status)
    }

    private func confirm(_ visit: Visit) async throws -> Response {
        let token = try visit.field("token")
        let password: String? = env.confirmsEmailChangeWithPassword ? try visit.field("password") : nil
        let request = visit.request
        let signedIn = visit.signedIn
        let confirmation: EmailChangeConfirmation
        do {
            confirmation = try await MailedCodeChecks(env: env.accounts).completeEmailChange(
                token: token, password: password, signedIn: signedIn, request: request)
        } catch AuthError.rateLimited(let wait) {
            var errors = FormErrors()
            errors.add("form", AuthError.rateLimited(retryAfter: wait).pageMessage)
            return renderConfirm(visit, token: token, errors: errors, status: 429).retrying(after: wait)
        } catch let error as AuthError {
            return refusal(error, visit, token: token)
        }
        let user = confirmation.user
        let keepsBrowser = confirmation.session != nil && signedIn?.user.id == user.id
        if keepsBrowser, let session = confirmation.session {
            var response = Response.redirect(to: "/account?notice=\(Notice.emailChanged.rawValue)")
            try await env.sessions.start(session, replacing: nil, request: request, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        }
        return env.renderer.page(
            .message,
            visit.context(
                title: "Email changed",
                [
                    "heading": "Your email address is changed",
                    "message": "Sign in with \(user.email) from now on. Every session of the account was signed out.",
                    "actionURL": URLQuery.path("/auth/sign-in", [("email", user.email)]), "actionLabel": "Sign in"
                ]))
    }

    /// The page for a confirmation that did not go through; nothing was changed.
    private func refusal(_ error: AuthError, _ visit: Visit, token: String) -> Response {
        var errors = FormErrors()
        switch error {
        case .validation(let fields):
            errors.add(fields)
            return renderConfirm(visit, token: token, errors: errors, status: 422)
        case .invalidCredentials:
            errors.add("password", Self.passwordRefused)
            return renderConfirm(visit, token: token, errors: errors, status: 401)
        case .emailExists:
            return env.renderer.errorPage(
                status: 409, heading: "That address is taken",
                message: "Another account has used this address since the link was sent. Nothing was changed.")
        case .invalidCode, .codeExpired:
            return env.renderer.errorPage(
                status: 400, heading: "This link can't be used",
                message: "The link is wrong, has expired, or was already used. Ask for a new one from your account page.")
        default:
            errors.add("form", error.pageMessage)
            return renderConfirm(visit, token: token, errors: errors, status: 502)
        }
    }
}
