import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// Passwordless sign-in: a mailed 6-digit code (`/auth/sign-in/code`) and a mailed magic link
/// (`/auth/sign-in/link`, opened at `/auth/magic`). Every address gets the same answer in the same
/// time; only the backend knows whether a mail went out. A magic link signs in at once only in the
/// browser that asked for it (a nonce in the `gh_magic` cookie, bound to the link by its keyed
/// hash); anywhere else — a mail scanner, another device — it spends nothing and asks
/// "Continue as …?" with a POST.
struct PasswordlessPages: Sendable {
    let env: PageEnvironment
    /// The sign-in page, shown again with errors of a request from it.
    let signIn: SignInPages

    static let magicCookieName = "gh_magic"
    static let magicCookieLifetime = 10 * 60

    func register(on router: inout Router) {
        router.page(.post, "/auth/sign-in/code", env, requestCode)
        router.page(.get, "/auth/sign-in/code", env) { visit in
            guard offers(.emailCode) else { return notOffered(visit) }
            let otp = try visit.query("otp") ?? ""
            guard !otp.isEmpty else { return .redirect(to: "/auth/sign-in") }
            return await renderCode(
                visit, otp: otp, email: try visit.query("email") ?? "",
                redirect: URLQuery.localRedirect(try visit.query("redirect"), fallback: "/account"), errors: FormErrors())
        }
        router.page(.post, "/auth/sign-in/code/verify", env, checkCode)
        router.page(.post, "/auth/sign-in/link", env, requestLink)
        router.page(.get, "/auth/magic", env, openLink)
        router.page(.post, "/auth/magic", env, continueLink)
    }

    /// The methods the sign-in page offers — an app's hosted page too: those configured that the
    /// backend can do. A sign-in made for an app continues to it through `AppFlow`.
    static func offeredMethods(_ env: PageEnvironment) -> Set<SignInMethod> {
        env.configuration.signInMethods.filter { method in
            switch method {
            case .password: return true
            case .emailCode: return env.capabilities.contains(.emailOTP)
            case .magicLink: return env.capabilities.contains(.magicLink)
            }
        }
    }

    private func offers(_ method: SignInMethod) -> Bool {
        Self.offeredMethods(env).contains(method)
    }

    /// The sign-in page again with `errors`, as the app's page when the form came from one.
    private func signInPage(
        _ visit: Visit, email: String, redirect: String, errors: FormErrors, status: Int
    ) async throws -> Response {
        let app = try? await signIn.appRequest(visit.form).get()
        return await signIn.render(visit, email: email, redirect: redirect, app: app ?? nil, errors: errors, status: status)
    }

    // MARK: Email code

    private func requestCode(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/account")
        let previousOTP = try visit.form.single("otp") ?? ""
        guard offers(.emailCode) else { return notOffered(visit) }
        var errors = FormErrors()
        /// Back to where the request came from: the code page on a resend, else the sign-in page.
        func refuse(_ message: String, status: Int) async throws -> Response {
            errors.add(previousOTP.isEmpty ? "form" : "code", message)
            if previousOTP.isEmpty {
                return try await signInPage(visit, email: email, redirect: redirect, errors: errors, status: status)
            }
            return await renderCode(visit, otp: previousOTP, email: email, redirect: redirect, errors: errors, status: status)
        }
        guard EmailAddress.isPlausible(email) else { return try await refuse("Enter a valid email address.", status: 422) }
        let otpID: String
        do {
            switch try await MailRequests(env: env.accounts, via: nil).signInCode(
                email: email, allowSignUp: env.configuration.passwordlessSignUp, request: visit.request)
            {
            case .sent(let id):
                otpID = id
            case .held(let refusal):
                return try await refuse(
                    "Please wait \(Wait.describe(refusal.retryAfter)) before asking for another email.", status: 429
                )
                .retrying(after: refusal.retryAfter)
            }
        } catch let error as AuthError {
            return try await refuse(error.pageMessage, status: Self.status(of: error))
        }
        var items = [("otp", otpID), ("email", email), ("notice", Notice.signInCodeSent.rawValue)]
        if redirect != "/account" { items.append(("redirect", redirect)) }
        return .redirect(to: URLQuery.path("/auth/sign-in/code", items))
    }

    private func renderCode(
        _ visit: Visit, otp: String, email: String, redirect: String, errors: FormErrors, status: Int = 200
    ) async -> Response {
        let wait =
            EmailAddress.isPlausible(email) ? await MailCooldown(env: env.accounts).signInCode(to: email) : 0
        return env.renderer.page(
            .signInCode,
            visit.context(
                title: "Enter your sign-in code",
                [
                    "otp": otp, "email": email, "redirect": redirect == "/account" ? "" : redirect,
                    "cooldownSeconds": wait, "canResend": EmailAddress.isPlausible(email)
                ].merging(errors.context) { $1 }), status: status)
    }

    private func checkCode(_ visit: Visit) async throws -> Response {
        let otp = try visit.field("otp")
        let code = try visit.field("code").filter { !$0.isWhitespace }
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/account")
        guard offers(.emailCode) else { return notOffered(visit) }
        var errors = FormErrors()
        guard !otp.isEmpty else { return .redirect(to: "/auth/sign-in") }
        guard code.count == 6, code.allSatisfy(\.isASCII), code.allSatisfy(\.isNumber) else {
            errors.add("code", "Enter the 6-digit code from the email.")
            return await renderCode(visit, otp: otp, email: email, redirect: redirect, errors: errors, status: 422)
        }
        do {
            switch try await EmailCodeSignIn(env: env.accounts, via: nil).attempt(
                otpID: otp, code: code, email: email, request: visit.request)
            {
            case .signedIn(let session):
                return try await start(session, redirect: Self.landing(visit, redirect), visit: visit)
            case .secondStep(let challenge):
                return SecondStep.redirect(
                    challenge, continueTo: Self.landing(visit, redirect), secure: env.configuration.usesTLS)
            case .refused(.throttled(let wait)):
                errors.add("code", AuthError.rateLimited(retryAfter: wait).pageMessage)
                return await renderCode(visit, otp: otp, email: email, redirect: redirect, errors: errors, status: 429)
                    .retrying(after: wait)
            case .refused:
                errors.add("code", VerificationPages.codeRefused)
                return await renderCode(visit, otp: otp, email: email, redirect: redirect, errors: errors, status: 422)
            }
        } catch let error as AuthError {
            errors.add("code", error.pageMessage)
            return await renderCode(
                visit, otp: otp, email: email, redirect: redirect, errors: errors, status: Self.status(of: error))
        }
    }

    // MARK: Magic link

    private func requestLink(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/account")
        guard offers(.magicLink) else { return notOffered(visit) }
        var errors = FormErrors()
        guard EmailAddress.isPlausible(email) else {
            errors.add("form", "Enter a valid email address.")
            return try await signInPage(visit, email: email, redirect: redirect, errors: errors, status: 422)
        }
        // A fresh nonce each time: the backend kills the address's older links anyway.
        let nonce = SecureRandom.token()
        do {
            if case .held(let refusal) = try await MailRequests(env: env.accounts, via: nil).magicLink(
                email: email, allowSignUp: env.configuration.passwordlessSignUp,
                browserBinding: MagicLinkSignIn(env: env.accounts).binding(of: nonce), request: visit.request)
            {
                errors.add("form", "Please wait \(Wait.describe(refusal.retryAfter)) before asking for another email.")
                return try await signInPage(visit, email: email, redirect: redirect, errors: errors, status: 429)
                    .retrying(after: refusal.retryAfter)
            }
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return try await signInPage(visit, email: email, redirect: redirect, errors: errors, status: Self.status(of: error))
        }
        var response = env.renderer.page(
            .message,
            visit.context(
                title: "Check your email",
                [
                    "heading": "Check your email",
                    "message":
                        "If \(email) can sign in here, a sign-in link is on its way. Open it in this browser within 10 minutes; it works once.",
                    "actionURL": "/auth/sign-in", "actionLabel": "Back to sign-in"
                ]))
        response.setCookie(
            Cookie(
                name: Self.magicCookieName, value: nonce, path: "/auth/magic", maxAge: Self.magicCookieLifetime,
                httpOnly: true, secure: env.configuration.usesTLS, sameSite: .lax))
        return response
    }

    /// `GET /auth/magic?t=`: signs in when this is the browser that asked; elsewhere asks first.
    private func openLink(_ visit: Visit) async throws -> Response {
        let token = try visit.query("t") ?? ""
        guard offers(.magicLink) else { return notOffered(visit) }
        // No cookie: a binding nobody holds, so the link is never spent from here without a POST.
        let nonce = visit.request.cookies[Self.magicCookieName].flatMap(Self.wellFormedNonce) ?? "none:" + SecureRandom.token()
        return try await answer(token: token, nonce: nonce, visit: visit)
    }

    /// `POST /auth/magic`: the person confirmed "Continue as …" in a browser that did not ask.
    private func continueLink(_ visit: Visit) async throws -> Response {
        let token = try visit.field("t")
        guard offers(.magicLink) else { return notOffered(visit) }
        return try await answer(token: token, nonce: nil, visit: visit)
    }

    private func answer(token: String, nonce: String?, visit: Visit) async throws -> Response {
        let signIn = MagicLinkSignIn(env: env.accounts)
        let outcome =
            Self.wellFormedNonce(token) == nil
            ? await signIn.refused("malformed", visit.request)
            : try await signIn.open(token: token, nonce: nonce, request: visit.request)
        switch outcome {
        case .signedIn(let session):
            // The browser's nonce is spent with the link.
            var response = try await start(session, redirect: AppFlow.landing(visit.request, otherwise: "/account"), visit: visit)
            response.setCookie(
                Cookie(
                    name: Self.magicCookieName, value: "", path: "/auth/magic", maxAge: 0, httpOnly: true,
                    secure: env.configuration.usesTLS, sameSite: .lax))
            return response
        case .refused(.openedElsewhere(let email)):
            return env.renderer.page(
                .magicLink, visit.context(title: "Continue signing in", ["token": token, "maskedEmail": Self.mask(email)]))
        case .secondStep(let challenge):
            return SecondStep.redirect(
                challenge, continueTo: AppFlow.landing(visit.request, otherwise: "/account"), secure: env.configuration.usesTLS)
        case .refused:
            // Said as it is, with a new link one address away (as the reset and verification links do).
            return env.renderer.page(.magicLink, visit.context(title: "Link not valid", ["spent": true]), status: 400)
        }
    }

    // MARK: Shared

    /// `redirect`, unless it is the default landing and an app flow is pending: then back to the app.
    static func landing(_ visit: Visit, _ redirect: String) -> String {
        redirect == "/account" ? AppFlow.landing(visit.request, otherwise: redirect) : redirect
    }

    /// Starts the browser session and continues to `redirect`.
    private func start(_ session: AuthSession, redirect: String, visit: Visit) async throws -> Response {
        var response = Response.redirect(to: redirect)
        try await env.sessions.start(session, replacing: visit.signedIn, request: visit.request, response: &response)
        env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
        return response
    }

    private func notOffered(_ visit: Visit) -> Response {
        env.renderer.errorPage(
            visit, status: 404, title: "Not available", heading: "This way of signing in is turned off",
            message: "Sign in from the sign-in page with one of the ways it offers.")
    }

    private static func status(of error: AuthError) -> Int {
        switch error {
        case .validation: return 422
        case .rateLimited: return 429
        case .notSupported: return 404
        default: return 502
        }
    }

    /// A token or nonce as Gatehouse makes them (43 base64url characters), else nil.
    static func wellFormedNonce(_ text: String) -> String? {
        guard (20...128).contains(text.count),
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") })
        else { return nil }
        return text
    }

    /// `ada@example.com` → `a…@example.com`: enough to recognise one's own address, not to learn someone's.
    static func mask(_ email: String) -> String {
        guard let at = email.lastIndex(of: "@"), at > email.startIndex else { return email }
        return String(email[email.startIndex]) + "…" + email[at...]
    }
}
