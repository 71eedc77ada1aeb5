import Accounts
import AuthCore
import HTTPServer

/// `/auth/verify` (6-digit code), `/auth/verify-link` (mailed link) and `/auth/resend-verification`.
struct VerificationPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.get, "/auth/verify", env) { visit in
            let email = try visit.query("email") ?? ""
            return await renderVerify(visit, email: email, code: "", errors: FormErrors())
        }
        router.page(.post, "/auth/verify", env, submitCode)
        router.page(.get, "/auth/verify-link", env, openLink)
        router.page(.get, "/auth/resend-verification", env) { visit in
            let email = try visit.query("email") ?? ""
            return await renderResend(visit, email: email, errors: FormErrors())
        }
        router.page(.post, "/auth/resend-verification", env, resend)
    }

    private func cooldown(for email: String) async -> Int {
        await MailCooldown(env: env.accounts).verificationMail(to: email)
    }

    private func renderVerify(
        _ visit: Visit, email: String, code: String, errors: FormErrors,
        status: Int = 200
    ) async -> Response {
        let wait = await cooldown(for: email)
        return env.renderer.page(
            .verify,
            visit.context(
                title: "Verify your email",
                [
                    "email": email,
                    "form": ["code": code],
                    "cooldownSeconds": wait,
                    "resendAvailable": wait == 0,
                    "linkMode": env.verificationMode == .link
                ].merging(errors.context) { $1 }), status: status)
    }

    private func renderResend(_ visit: Visit, email: String, errors: FormErrors, status: Int = 200) async -> Response {
        env.renderer.page(
            .resendVerification,
            visit.context(
                title: "Resend verification email",
                [
                    "form": ["email": email],
                    "cooldownSeconds": email.isEmpty ? 0 : await cooldown(for: email)
                ].merging(errors.context) { $1 }), status: status)
    }

    private func submitCode(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let code = try visit.field("code").filter { !$0.isWhitespace }
        var errors = FormErrors()
        guard env.capabilities.contains(.emailCodeVerification) else {
            errors.add("code", AuthError.notSupported(.emailCodeVerification).pageMessage)
            return await renderVerify(visit, email: email, code: code, errors: errors, status: 422)
        }
        guard code.count == 6, code.allSatisfy(\.isASCII), code.allSatisfy(\.isNumber) else {
            errors.add("code", "Enter the 6-digit code from the email.")
            return await renderVerify(visit, email: email, code: code, errors: errors, status: 422)
        }
        do {
            let session: AuthSession
            switch try await MailedCodeChecks(env: env.accounts).completeVerification(
                email: email, code: code, request: visit.request
            ).signIn {
            case .signedIn(let signedIn): session = signedIn
            case .secondStep(let challenge):
                // The code was right and the address is verified; the account asks for its second step.
                return SecondStep.redirect(
                    challenge,
                    continueTo: AppFlow.landing(visit.request, otherwise: "/account?notice=\(Notice.verified.rawValue)"),
                    secure: env.configuration.usesTLS)
            case .refused, nil:
                // A backend that verifies without signing in sends the person to sign in.
                return .redirect(
                    to: URLQuery.path("/auth/sign-in", [("email", email), ("notice", Notice.verifiedSignIn.rawValue)]))
            }
            var response = Response.redirect(to: AppFlow.landing(visit.request, otherwise: "/account?notice=verified"))
            try await env.sessions.start(session, replacing: visit.signedIn, request: visit.request, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        } catch AuthError.rateLimited(let wait) {
            errors.add("code", AuthError.rateLimited(retryAfter: wait).pageMessage)
            return await renderVerify(visit, email: email, code: code, errors: errors, status: 429).retrying(after: wait)
        } catch let error as AuthError {
            // A wrong, spent, expired or killed code — or an address with no account — all read the
            // same, so the form reveals nothing about the address.
            switch error {
            case .invalidCode, .codeExpired: errors.add("code", Self.codeRefused)
            default: errors.add("code", error.pageMessage)
            }
            return await renderVerify(visit, email: email, code: "", errors: errors, status: 422)
        }
    }

    /// Link verification confirms the address but does not sign in: mail scanners open links too.
    private func openLink(_ visit: Visit) async throws -> Response {
        let token = try visit.query("token") ?? ""
        do {
            let outcome = try await MailedCodeChecks(env: env.accounts).completeVerification(
                linkToken: token, request: visit.request)
            guard let user = outcome.verifiedUser else {
                return env.renderer.page(
                    .message,
                    visit.context(
                        title: "Email verified",
                        [
                            "heading": "Your email is verified", "message": "Your address is confirmed. You can sign in now.",
                            "actionURL": "/auth/sign-in", "actionLabel": "Sign in"
                        ]))
            }
            let signedIn = visit.user?.id == user.id
            // Opened in the browser that began an app's sign-in: on to the app (signing in first).
            if AppFlow.isPending(visit.request) {
                return env.renderer.page(
                    .message,
                    visit.context(
                        title: "Email verified",
                        [
                            "heading": "Your email is verified", "message": "\(user.email) is confirmed.",
                            "actionURL": AppFlow.returnPath, "actionLabel": "Continue"
                        ]))
            }
            return env.renderer.page(
                .message,
                visit.context(
                    title: "Email verified",
                    [
                        "heading": "Your email is verified",
                        "message": "\(user.email) is confirmed. " + (signedIn ? "You're all set." : "You can sign in now."),
                        "actionURL": signedIn ? "/account" : URLQuery.path("/auth/sign-in", [("email", user.email)]),
                        "actionLabel": signedIn ? "Go to your account" : "Sign in"
                    ]))
        } catch is AuthError {
            // Said as it is, with the way to a new link (not a bare error page and a way home).
            return env.renderer.page(
                .message,
                visit.context(
                    title: "Link not valid",
                    [
                        "heading": "This verification link can't be used", "problem": true,
                        "message": "It is wrong, has expired, or was already used. Ask for a new one.",
                        "actionURL": "/auth/resend-verification", "actionLabel": "Send a new link"
                    ]), status: 400)
        }
    }

    /// The one answer to every code that does not verify.
    static let codeRefused = "That code is not right or is no longer valid. Check the newest email, or ask for a new code."

    /// A resend answers no sooner than `MailRequests.answerFloor` after it arrived, whatever the
    /// address: sending (a token write and a mail) would otherwise make unverified addresses slower.
    private func resend(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        var errors = FormErrors()
        guard EmailAddress.isPlausible(email) else {
            errors.add("email", "Enter the email address you signed up with.")
            return await renderResend(visit, email: email, errors: errors, status: 422)
        }
        do {
            if case .held(let refusal) = try await MailRequests(env: env.accounts, via: nil).verification(
                email: email, request: visit.request)
            {
                errors.add("email", "Please wait \(Wait.describe(refusal.retryAfter)) before asking for another email.")
                return await renderResend(visit, email: email, errors: errors, status: 429).retrying(after: refusal.retryAfter)
            }
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return await renderResend(visit, email: email, errors: errors, status: 502)
        }
        return .redirect(to: URLQuery.path("/auth/verify", [("email", email), ("notice", Notice.codeSent.rawValue)]))
    }
}
