import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The console's front door: `/_/` (sign-in), `/_/sign-out`, and `POST /_/api/auth` for scripts.
struct ConsolePages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.get, "/_/", env) { visit in
            let target = URLQuery.localRedirect(try visit.query("redirect"), fallback: "/_/users")
            if await env.console.fromCookie(visit.request) != nil { return .redirect(to: target) }
            return render(visit, email: "", redirect: target, errors: FormErrors())
        }
        router.page(.post, "/_/", env, signIn)
        router.page(.post, "/_/second-step", env, secondStep)
        router.page(.post, "/_/sign-out", env) { visit in
            var response = Response.redirect(to: "/_/")
            if let staff = await env.console.fromCookie(visit.request) {
                try await env.console.signOut(staff, request: visit.request)
                try await ImpersonationEnding(env: env.accounts).endAll(startedBy: staff, request: visit.request)
            }
            response.setCookie(env.console.clearedCookie)
            return response
        }
        router.on(.post, "/_/api/auth", apiAuth)
    }

    private func render(
        _ visit: Visit, email: String, redirect: String, errors: FormErrors, secondStep: Bool = false, status: Int = 200
    ) -> Response {
        env.renderer.page(
            .consoleSignIn,
            visit.context(
                title: "Console sign-in",
                [
                    "form": ["email": email],
                    "redirect": redirect == "/_/users" ? "" : redirect,
                    "secondStep": secondStep
                ].merging(errors.context) { $1 }), status: status)
    }

    /// Starts the console session and goes on to `redirect`.
    private func signedIn(
        _ superuser: StaffMember, visit: Visit, redirect: String, secondStep: SecondFactor.Method?
    ) async throws -> Response {
        let session = try await env.console.open(for: superuser, at: .console, request: visit.request, secondStep: secondStep)
        var response = Response.redirect(to: redirect.hasPrefix("/_/") ? redirect : "/_/users")
        response.setCookie(env.console.cookie(token: session.token))
        response.setCookie(env.staffSignIn.clearedSecondStepCookie(secure: env.configuration.usesTLS))
        env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
        return response
    }

    /// The code after the password, or one recovery code, for superusers with TOTP on
    /// (`TOTPRules`: five tries, five minutes, ten wrong steps an hour).
    private func secondStep(_ visit: Visit) async throws -> Response {
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/_/users")
        let recovery = try visit.form.single("recovery_code")
        var factor = SecondFactor.recoveryCode(String((recovery ?? "").prefix(64)))
        if recovery == nil { factor = .totp(code: try visit.field("code").filter { !$0.isWhitespace }) }
        var errors = FormErrors()
        switch try await env.staffSignIn.completeSecondStep(
            pending: visit.request.cookies[StaffSignIn.secondStepCookie], factor: factor)
        {
        case .signedIn(let superuser, let method):
            return try await signedIn(superuser, visit: visit, redirect: redirect, secondStep: method)
        case .wrong:
            await env.staffSignIn.recordFailure(recovery == nil ? "wrong_code" : "wrong_recovery_code", request: visit.request)
            if recovery == nil {
                errors.add("code", "That code isn't right. Enter the current code from your authenticator app.")
            } else {
                errors.add("recovery_code", "That recovery code isn't right, or it was used already.")
            }
            return render(visit, email: "", redirect: redirect, errors: errors, secondStep: true, status: 422)
        case .dead:
            await env.staffSignIn.recordFailure("second_step_expired", request: visit.request)
            errors.add("form", "That sign-in expired or had too many wrong codes. Sign in again.")
            var response = render(visit, email: "", redirect: redirect, errors: errors, status: 401)
            response.setCookie(env.staffSignIn.clearedSecondStepCookie(secure: env.configuration.usesTLS))
            return response
        }
    }

    private func signIn(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try visit.field("password")
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/_/users")
        var errors = FormErrors()
        switch try await env.staffSignIn.attempt(email: email, password: password, request: visit.request, via: nil) {
        case .signedIn(let superuser):
            return try await signedIn(superuser, visit: visit, redirect: redirect, secondStep: nil)
        case .secondStep(_, let pending):
            var response = render(visit, email: email, redirect: redirect, errors: errors, secondStep: true)
            response.setCookie(env.staffSignIn.secondStepCookie(pending: pending, secure: env.configuration.usesTLS))
            return response
        case .refused:
            errors.add("form", "That email and password don't match a superuser.")
            return render(visit, email: email, redirect: redirect, errors: errors, status: 401)
        case .throttled(let wait):
            errors.add("form", "Too many sign-in attempts from your network. Try again in \(Wait.describe(wait)).")
            return render(visit, email: email, redirect: redirect, errors: errors, status: 429)
        }
    }

    /// `{email, password}` → `{token, expiresAt}`: a console token for `Authorization: Bearer`.
    private func apiAuth(_ request: Request, _ parameters: PathParameters) async throws -> Response {
        struct Credentials: Decodable {
            var email: String
            var password: String
            /// The authenticator code (or one recovery code), for superusers with TOTP on.
            var code: String?
        }
        let credentials: Credentials = try request.decodeJSON(Credentials.self)
        switch try await env.staffSignIn.attempt(
            email: credentials.email, password: credentials.password, request: request, via: "api")
        {
        case .signedIn(let superuser):
            return try await apiSession(for: superuser, request: request, secondStep: nil)
        case .secondStep(let superuser, _):
            guard let method = try await env.staffSignIn.apiSecondStep(superuser, credentials.code) else {
                await env.staffSignIn.recordFailure("wrong_code", email: credentials.email, via: "api", request: request)
                return APIError.response(
                    status: 401, code: "INVALID_CREDENTIALS",
                    message:
                        "This superuser has two-step sign-in on: send the current authenticator code, or a recovery code, "
                        + "as \"code\".")
            }
            return try await apiSession(for: superuser, request: request, secondStep: method)
        case .refused:
            return APIError.response(
                status: 401, code: "INVALID_CREDENTIALS",
                message: "That email and password don't match a superuser.")
        case .throttled(let wait):
            var response = APIError.response(
                status: 429, code: "TOO_MANY_REQUESTS",
                message: "Too many sign-in attempts. Try again in \(Wait.describe(wait)).")
            response.headers.replaceOrAdd("Retry-After", String(wait))
            return response
        }
    }

    /// A console token for `POST /_/api/auth`, audited as a completed sign-in.
    private func apiSession(
        for superuser: StaffMember, request: Request, secondStep: SecondFactor.Method?
    ) async throws -> Response {
        struct Token: Encodable {
            var token: String
            var expiresAt: String
        }
        let session = try await env.console.open(
            for: superuser, at: .adminAPI, request: request, secondStep: secondStep, via: "api")
        return try .json(Token(token: session.token, expiresAt: Timestamp.iso8601(session.expiresAt)))
    }
}
