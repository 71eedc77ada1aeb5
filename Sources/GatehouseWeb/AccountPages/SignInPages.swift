import Accounts
import AuthCore
import HTTPServer

/// `/auth/sign-in` and `/auth/sign-out`. Every failure reads the same: unknown email, wrong
/// password, disabled or locked account.
struct SignInPages: Sendable {
    let env: PageEnvironment
    /// Provider buttons and the hosted page for apps (`?redirect=…&client_type=…&code_challenge=…`).
    var oauth: OAuthFeature? = nil

    func register(on router: inout Router) {
        router.page(.get, "/auth/sign-in", env) { visit in
            let app: AppSignInRequest?
            switch try await appRequest(visit.request.query) {
            case .failure(let refusal): return refuse(refusal)
            case .success(let request): app = request
            }
            let redirect = URLQuery.localRedirect(try visit.query("redirect"), fallback: "/account")
            if let signedIn = visit.signedIn, let app, let oauth {
                return try await HostedSignIn(feature: oauth).redirect(
                    continuing: signedIn, request: app, httpRequest: visit.request)
            }
            if visit.user != nil { return .redirect(to: redirect) }
            return await render(visit, email: try visit.query("email") ?? "", redirect: redirect, app: app, errors: FormErrors())
        }
        router.page(.post, "/auth/sign-in", env, submit)
        router.page(.post, "/auth/sign-out", env) { visit in
            var response = Response.redirect(to: "/auth/sign-in?notice=signed-out")
            if let signedIn = visit.signedIn {
                try await OwnSessions(env: env.accounts).signOutOfThis(signedIn, request: visit.request)
            }
            try await env.sessions.end(nil, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        }
    }

    /// The sign-in page; passwordless pages show it again with their errors.
    func render(
        _ visit: Visit, email: String, redirect: String, app: AppSignInRequest?, errors: FormErrors,
        status: Int = 200
    ) async -> Response {
        let appItems = app?.queryItems ?? []
        let providers = await oauth?.buttonProviders() ?? []
        let methods = PasswordlessPages.offeredMethods(env, app: app)
        var response = env.renderer.page(
            .signIn,
            visit.context(
                title: "Sign in",
                [
                    "form": ["email": email],
                    "methods": [
                        "password": methods.contains(.password), "emailCode": methods.contains(.emailCode),
                        "magicLink": methods.contains(.magicLink),
                        "passwordless": methods.contains(.emailCode) || methods.contains(.magicLink)
                    ],
                    "redirect": redirect == "/account" || app != nil ? "" : redirect,
                    "passwordReset": env.capabilities.contains(.passwordReset),
                    "passkeys": env.capabilities.contains(.passkeys),
                    "app": appItems.map { ["name": $0.0, "value": $0.1] },
                    "providers": providers.map { provider in
                        [
                            "name": provider.name, "label": provider.label, "testMode": provider.mode == .test,
                            "href": URLQuery.path("/auth/oauth/\(provider.name)", appItems)
                        ] as [String: Any]
                    }
                ].merging(errors.context) { $1 }), status: status)
        if let app, let policy = HostedSignIn.pageCSP(for: app) {
            response.headers.replaceOrAdd("Content-Security-Policy", policy)
        }
        return response
    }

    /// The app flow's parameters when present (nil for a plain sign-in), or why they are refused.
    private func appRequest(_ parameters: Parameters) async throws -> Result<AppSignInRequest?, AppSignInRequest.Refusal> {
        guard let oauth, AppSignInRequest.isAppRequest(parameters) else { return .success(nil) }
        do {
            return .success(try await AppSignInRequest.parse(parameters, registry: oauth.registry))
        } catch let refusal as AppSignInRequest.Refusal {
            return .failure(refusal)
        }
    }

    private func refuse(_ refusal: AppSignInRequest.Refusal) -> Response {
        env.renderer.errorPage(status: 400, heading: "This sign-in request was refused", message: refusal.message)
    }

    private func submit(_ visit: Visit) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try visit.field("password")
        let app: AppSignInRequest?
        switch try await appRequest(visit.form) {
        case .failure(let refusal): return refuse(refusal)
        case .success(let request): app = request
        }
        let redirect = URLQuery.localRedirect(app == nil ? try visit.form.single("redirect") : nil, fallback: "/account")
        let request = visit.request
        var errors = FormErrors()
        guard env.configuration.signInMethods.contains(.password) else {
            errors.add("form", "Signing in with a password is turned off here. Ask for a sign-in email instead.")
            return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 403)
        }
        let session: AuthSession
        do {
            switch try await PasswordSignIn(env: env.accounts, via: nil).attempt(
                email: email, password: password, request: request)
            {
            case .session(let signedIn):
                session = signedIn
            case .secondStep(let challenge):
                // The password was right; the account asks for its second step. An app sign-in comes
                // back to this page with the app's parameters, which then hands the app its code.
                let continueTo = app.map { URLQuery.path("/auth/sign-in", $0.queryItems) } ?? redirect
                return SecondStep.redirect(challenge, continueTo: continueTo, secure: env.configuration.usesTLS)
            }
        } catch AuthError.rateLimited(let wait) {
            errors.add("form", "Too many sign-in attempts from your network. Try again in \(Wait.describe(wait)).")
            return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 429)
                .retrying(after: wait)
        } catch AuthError.emailNotVerified(let address) {
            return .redirect(to: URLQuery.path("/auth/verify", [("email", address), ("notice", Notice.verifyFirst.rawValue)]))
        } catch AuthError.invalidCredentials {
            errors.add("form", AuthError.invalidCredentials.pageMessage)
            return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 401)
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 502)
        }
        var response = Response.redirect(to: redirect)
        if let app, let oauth {
            response = try await HostedSignIn(feature: oauth).redirect(for: session.user, request: app, httpRequest: request)
        }
        try await env.sessions.start(session, replacing: visit.signedIn, request: request, response: &response)
        env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
        return response
    }
}
