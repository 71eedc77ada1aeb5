import Accounts
import AuthCore
import HTTPServer

/// `/auth/sign-up`: create an account, then verify it (code or link) or sign straight in.
struct SignUpPages: Sendable {
    let env: PageEnvironment
    /// An app's sign-up (`?redirect=…&code_challenge=…`, from its hosted page): branded, and the
    /// app flow (`AppFlow`) carries the person back to the app once the account is verified.
    var oauth: OAuthFeature? = nil

    func register(on router: inout Router) {
        router.page(.get, "/auth/sign-up", env) { visit in
            switch try await AppSignInRequest.requested(in: visit.request.query, oauth: oauth) {
            case .failure(let refusal):
                return env.renderer.errorPage(status: 400, heading: "This sign-in request was refused", message: refusal.message)
            case .success(let app?) where visit.user != nil:
                // Signed in already: the app's page offers "Continue as …".
                return .redirect(to: URLQuery.path("/auth/sign-in", app.queryItems))
            case .success(nil) where visit.user != nil:
                return .redirect(to: "/account")
            case .success(let app?):
                var response = await render(visit, email: "", name: "", app: app, errors: FormErrors())
                oauth?.appFlow.remember(app, in: &response, now: env.clock(), secure: env.configuration.usesTLS)
                return response
            case .success(nil):
                var response = await render(visit, email: "", name: "", keepsAppFlow: false, errors: FormErrors())
                // A plain sign-up: the person went on without the app they came from.
                if AppFlow.isPending(visit.request) { AppFlow.forget(in: &response, secure: env.configuration.usesTLS) }
                return response
            }
        }
        router.page(.post, "/auth/sign-up", env, submit)
    }

    /// The sign-up page; shown again with errors, it stays the app's page while an app flow is pending
    /// (`keepsAppFlow`: false for a plain sign-up, which ends the flow).
    private func render(
        _ visit: Visit, email: String, name: String, app: AppSignInRequest? = nil, keepsAppFlow: Bool = true,
        errors: FormErrors, status: Int = 200
    ) async -> Response {
        var context: [String: Any] = [
            "form": ["email": email, "name": name],
            "passwordRules": env.accounts.passwordRules.summary,
            "verificationMode": env.verificationMode.rawValue,
            "passkeys": env.capabilities.contains(.passkeys)
        ]
        // The app's page: the one just asked for (its flow starts with this reply), else the pending one.
        if let app, let oauth, let record = try? await AppSignInRequest.registered(app, registry: oauth.registry) {
            context["brand"] = record.hostedPageContext
            context["signInURL"] = URLQuery.path("/auth/sign-in", app.queryItems)
        } else if !keepsAppFlow {
            context["brand"] = false
            context["signInURL"] = "/auth/sign-in"
        }
        return env.renderer.page(
            .signUp, visit.context(title: "Create your account", context.merging(errors.context) { $1 }), status: status)
    }

    private func submit(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try visit.field("password")
        let name = try visit.field("name").trimmingCharacters(in: .whitespacesAndNewlines)
        var errors = FormErrors()
        do {
            let result = try await SignUp(env: env.accounts, via: nil).attemptSigningIn(
                SignUpRequest(email: email, password: password, name: name.isEmpty ? nil : name), request: visit.request)
            guard !result.requireEmailVerification, let session = result.session else {
                return .redirect(to: URLQuery.path("/auth/verify", [("email", result.user.email)]))
            }
            var response = Response.redirect(to: AppFlow.landing(visit.request, otherwise: "/account?notice=welcome"))
            try await env.sessions.start(session, replacing: visit.signedIn, request: visit.request, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        } catch AuthError.rateLimited(let wait) {
            errors.add("form", Self.tooManySignUps(wait))
            return await render(visit, email: email, name: name, errors: errors, status: 429).retrying(after: wait)
        } catch AuthError.validation(let fieldErrors) {
            errors.add(fieldErrors)
        } catch AuthError.emailExists where env.verificationMode != .none {
            // Answer exactly as for a new address, so the form reveals no account; the owner was
            // mailed about the attempt. (With verification off a new account is signed straight in,
            // which no answer for a taken address can imitate: see the README.)
            await SignUp(env: env.accounts, via: nil).refusedTakenAddress(email, request: visit.request)
            return .redirect(to: URLQuery.path("/auth/verify", [("email", email)]))
        } catch AuthError.emailExists {
            errors.add("email", Self.emailTaken)
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
        }
        return await render(visit, email: email, name: name, errors: errors, status: 422)
    }

    /// What a sign-up over its source's budget is told (the passkey sign-up too).
    static func tooManySignUps(_ wait: Int) -> String {
        "Too many new accounts from your network. Try again in \(Wait.describe(wait))."
    }

    /// What a sign-up for a taken address is told while addresses are not verified.
    static let emailTaken = "An account with this email already exists. Sign in instead, or use another address."
}
