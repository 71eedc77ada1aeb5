import AuthCore
import HTTPServer

/// `/auth/sign-in` and `/auth/sign-out`. Every failure reads the same: unknown email, wrong
/// password, disabled or locked account.
struct SignInPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.get, "/auth/sign-in", env) { visit in
            let redirect = URLQuery.localRedirect(try visit.query("redirect"), fallback: "/account")
            if visit.user != nil { return .redirect(to: redirect) }
            return render(visit, email: try visit.query("email") ?? "", redirect: redirect, errors: FormErrors())
        }
        router.page(.post, "/auth/sign-in", env, submit)
        router.page(.post, "/auth/sign-out", env) { visit in
            if let user = visit.user {
                await env.audit.record("sign_out", actor: user.id.rawValue, subject: user.id.rawValue, request: visit.request)
            }
            var response = Response.redirect(to: "/auth/sign-in?notice=signed-out")
            try await env.sessions.end(visit.signedIn, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        }
    }

    private func render(_ visit: Visit, email: String, redirect: String, errors: FormErrors, status: Int = 200) -> Response {
        env.renderer.page("sign-in", visit.context(title: "Sign in", [
            "form": ["email": email],
            "redirect": redirect == "/account" ? "" : redirect,
        ].merging(errors.context) { $1 }), status: status)
    }

    private func submit(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try visit.field("password")
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/account")
        let request = visit.request
        let now = env.clock()
        var errors = FormErrors()
        if let wait = await env.limiter.take("sign-in:\(request.remoteAddress)", Throttle.signInPerIP, now: now) {
            await env.audit.record("sign_in.failed", request: request,
                                   data: ["email": .string(email), "reason": "rate_limited"])
            errors.add("form", "Too many sign-in attempts from your network. Try again in \(Wait.describe(wait)).")
            return render(visit, email: email, redirect: redirect, errors: errors, status: 429)
        }
        await env.audit.record("sign_in.started", request: request, data: ["email": .string(email)])
        let accountKey = "failures:\(EmailAddress.normalize(email))"
        let locked = await env.limiter.retryAfter(accountKey, Throttle.failuresPerAccount, now: now) != nil
        // A locked account still costs one password check, so its answer and timing match a wrong password.
        let reason: String
        do {
            let signIn = try await env.backend.signInForSession(email: email, password: password)
            let user = signIn.user
            if !locked {
                await env.limiter.reset(accountKey)
                await env.audit.record("sign_in.completed", actor: user.id.rawValue, subject: user.id.rawValue, request: request)
                var response = Response.redirect(to: redirect)
                try await env.sessions.start(for: user, credential: signIn.credential, replacing: visit.signedIn,
                                             request: request, response: &response)
                env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
                return response
            }
            reason = "locked"
        } catch AuthError.emailNotVerified(let address) where !locked {
            await env.audit.record("sign_in.failed", request: request,
                                   data: ["email": .string(email), "reason": "email_not_verified"])
            return .redirect(to: URLQuery.path("/auth/verify", [("email", address), ("notice", Notice.verifyFirst.rawValue)]))
        } catch AuthError.invalidCredentials {
            reason = locked ? "locked" : "invalid_credentials"
        } catch AuthError.emailNotVerified {
            reason = "locked"
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return render(visit, email: email, redirect: redirect, errors: errors, status: 502)
        }
        await env.limiter.hit(accountKey, Throttle.failuresPerAccount, now: now)
        await env.audit.record("sign_in.failed", request: request, data: ["email": .string(email), "reason": .string(reason)])
        errors.add("form", AuthError.invalidCredentials.pageMessage)
        return render(visit, email: email, redirect: redirect, errors: errors, status: 401)
    }
}
