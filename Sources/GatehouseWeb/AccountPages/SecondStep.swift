import Accounts
import AuthCore
import HTTPServer

/// Where every sign-in path (password, email code, magic link, provider) goes when its owner
/// answers `SignInResult.secondStep`: the pending challenge's id in a short-lived HttpOnly cookie scoped to
/// `/auth/mfa`, then that page, which finishes the sign-in and continues to `continueTo`.
enum SecondStep {
    static let cookieName = "gh_mfa"
    /// The challenge's own lifetime on the embedded backend (DESIGN: 5 minutes).
    static let lifetime = 5 * 60

    /// The redirect to `/auth/mfa`. `continueTo` is a local path (the hosted sign-in page's own URL
    /// with the app's parameters, for an app sign-in).
    static func redirect(_ challenge: MFAChallenge, continueTo: String, secure: Bool) -> Response {
        var response = Response.redirect(to: URLQuery.path("/auth/mfa", [("redirect", continueTo)]))
        response.setCookie(
            Cookie(
                name: cookieName, value: challenge.id, path: "/auth/mfa", maxAge: lifetime, httpOnly: true,
                secure: secure, sameSite: .lax))
        return response
    }

    /// Clears the challenge cookie once the challenge is spent or dead.
    static func clear(_ response: inout Response, secure: Bool) {
        response.setCookie(
            Cookie(name: cookieName, value: "", path: "/auth/mfa", maxAge: 0, httpOnly: true, secure: secure, sameSite: .lax))
    }
}

/// `GET/POST /auth/mfa`: the second sign-in step. Asks for the authenticator's 6-digit code, or one
/// of the recovery codes (a second form, opened without JavaScript), finishes the sign-in through
/// `SecondStepSignIn` (its throttles and audit), starts the browser session and continues to the
/// local `redirect`. A throttled try answers exactly like a wrong code.
struct SecondStepPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.get, "/auth/mfa", env) { visit in
            let redirect = URLQuery.localRedirect(try visit.query("redirect"), fallback: "/account")
            guard challengeID(visit) != nil else { return restart(visit, redirect: redirect) }
            return render(visit, redirect: redirect, recovery: try visit.query("method") == "recovery", errors: FormErrors())
        }
        router.page(.post, "/auth/mfa", env, submit)
    }

    private func challengeID(_ visit: Visit) -> String? {
        visit.request.cookies[SecondStep.cookieName].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// No pending sign-in (or a dead one): back to the sign-in page, the cookie cleared.
    private func restart(_ visit: Visit, redirect: String, notice: Notice? = nil) -> Response {
        var items: [(String, String)] = []
        if redirect != "/account" { items.append(("redirect", redirect)) }
        if let notice { items.append(("notice", notice.rawValue)) }
        // An app's sign-in starts again on the app's page (`/auth/app/return` sends a browser that
        // is not signed in there).
        let target = redirect == AppFlow.returnPath ? redirect : URLQuery.path("/auth/sign-in", items)
        var response = Response.redirect(to: target)
        SecondStep.clear(&response, secure: env.configuration.usesTLS)
        return response
    }

    private func render(_ visit: Visit, redirect: String, recovery: Bool, errors: FormErrors, status: Int = 200) -> Response {
        env.renderer.page(
            .mfa,
            visit.context(
                title: "Two-step sign-in",
                [
                    "redirect": redirect, "recovery": recovery,
                    "recoveryURL": URLQuery.path("/auth/mfa", [("redirect", redirect), ("method", "recovery")]),
                    "totpURL": URLQuery.path("/auth/mfa", [("redirect", redirect)])
                ].merging(errors.context) { $1 }), status: status)
    }

    private func submit(_ visit: Visit) async throws -> Response {
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/account")
        guard let challengeID = challengeID(visit) else { return restart(visit, redirect: redirect) }
        let recovery = try visit.form.single("recovery_code") != nil
        let field = recovery ? "recovery_code" : "code"
        let typed = try visit.field(field).trimmingCharacters(in: .whitespacesAndNewlines)
        var errors = FormErrors()
        let factor: SecondFactor
        if recovery {
            guard !typed.isEmpty, typed.count <= 64 else {
                errors.add(field, "Enter one of your recovery codes.")
                return render(visit, redirect: redirect, recovery: true, errors: errors, status: 422)
            }
            factor = .recoveryCode(typed)
        } else {
            let digits = typed.filter { !$0.isWhitespace }
            guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                errors.add(field, "Enter the 6-digit code from your authenticator app.")
                return render(visit, redirect: redirect, recovery: false, errors: errors, status: 422)
            }
            factor = .totp(code: digits)
        }
        let request = visit.request
        do {
            switch try await SecondStepSignIn(env: env.accounts, via: nil).attempt(
                challengeID: challengeID, factor: factor, request: request)
            {
            case .signedIn(let session):
                // A spent recovery code: the security tab says how many are left (when the sign-in
                // was going to the account anyway; an app's callback keeps its redirect).
                let next =
                    recovery && redirect == "/account"
                    ? "/account/security?notice=\(Notice.recoveryCodeUsed.rawValue)" : redirect
                var response = Response.redirect(to: next)
                SecondStep.clear(&response, secure: env.configuration.usesTLS)
                try await env.sessions.start(session, replacing: visit.signedIn, request: request, response: &response)
                env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
                return response
            case .refused(.expired):
                return restart(visit, redirect: redirect, notice: .mfaExpired)
            case .refused, .secondStep:
                return wrong(visit, redirect: redirect, recovery: recovery)
            }
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return render(visit, redirect: redirect, recovery: recovery, errors: errors, status: 502)
        }
    }

    /// The one answer to a wrong, replayed or throttled code.
    private func wrong(_ visit: Visit, redirect: String, recovery: Bool) -> Response {
        var errors = FormErrors()
        errors.add(
            recovery ? "recovery_code" : "code",
            recovery
                ? "That recovery code isn't right or was already used."
                : "That code isn't right. Enter the current code from your authenticator app.")
        return render(visit, redirect: redirect, recovery: recovery, errors: errors, status: 422)
    }
}
