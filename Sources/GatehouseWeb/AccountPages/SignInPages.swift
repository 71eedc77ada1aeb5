import Accounts
import AuthCore
import HTTPServer

/// `/auth/sign-in` and `/auth/sign-out`. An unknown email and a wrong password read the same; a
/// back-off is told its wait (alike for unknown addresses); a disabled account is named only after
/// its right password.
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
            guard let app, let oauth else {
                if visit.user != nil { return .redirect(to: redirect) }
                var response = await render(
                    visit, email: try visit.query("email") ?? "", redirect: redirect, app: nil, errors: FormErrors())
                // A plain sign-in: the person went on without the app they came from.
                if AppFlow.isPending(visit.request) { AppFlow.forget(in: &response, secure: env.configuration.usesTLS) }
                return response
            }
            // The app's page; someone already signed in sees "Continue as …" on it (not while a
            // superuser views the pages as them).
            if let signedIn = visit.signedIn { try AppCodes.checkMayHandOver(signedIn) }
            var response = await render(
                visit, email: try visit.query("email") ?? "", redirect: redirect, app: app, errors: FormErrors())
            oauth.appFlow.remember(app, in: &response, now: env.clock(), secure: env.configuration.usesTLS)
            return response
        }
        router.page(.post, "/auth/sign-in", env, submit)
        router.page(.post, "/auth/sign-out", env) { visit in
            // "Use another account" on an app's page signs out and comes back to that page.
            var response = Response.redirect(
                to: URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/auth/sign-in?notice=signed-out"))
            if let signedIn = visit.signedIn {
                try await OwnSessions(env: env.accounts).signOutOfThis(signedIn, request: visit.request)
            }
            try await env.sessions.end(nil, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        }
    }

    /// The sign-in page; passwordless pages show it again with their errors. For an app it is the
    /// app's page: its name, logo, colours and legal links, and "Continue as …" for someone signed in.
    func render(
        _ visit: Visit, email: String, redirect: String, app: AppSignInRequest?, errors: FormErrors,
        status: Int = 200
    ) async -> Response {
        let appItems = app?.queryItems ?? []
        let providers = await oauth?.buttonProviders() ?? []
        var record: RegisteredApp?
        if let app, let oauth { record = try? await AppSignInRequest.registered(app, registry: oauth.registry) }
        var context: [String: Any] = [
            "form": ["email": email],
            "methods": Self.methodsContext(env),
            "redirect": redirect == "/account" || app != nil ? "" : redirect,
            "passwordReset": env.capabilities.contains(.passwordReset),
            "passkeys": env.capabilities.contains(.passkeys),
            "app": appItems.map { ["name": $0.0, "value": $0.1] },
            "signUpURL": URLQuery.path("/auth/sign-up", appItems),
            "providers": providers.map { provider in
                [
                    "name": provider.name, "label": provider.label, "testMode": provider.mode == .test,
                    "href": URLQuery.path("/auth/oauth/\(provider.name)", appItems)
                ] as [String: Any]
            }
        ]
        // Only an app named in this request brands the page: a plain sign-in ends a pending flow.
        context["brand"] = record?.hostedPageContext ?? false
        if app != nil, let signedIn = visit.signedIn {
            context["continueAs"] = [
                "email": signedIn.user.email, "signOutRedirect": URLQuery.path("/auth/sign-in", appItems)
            ]
        }
        var response = env.renderer.page(
            .signIn,
            visit.context(title: record.map { "Sign in to \($0.name)" } ?? "Sign in", context.merging(errors.context) { $1 }),
            status: status)
        if let app, let policy = HostedSignIn.pageCSP(for: app, logoURL: record?.logoURL) {
            response.headers.replaceOrAdd("Content-Security-Policy", policy)
        }
        return response
    }

    /// Which ways in the page offers, as its template reads them.
    static func methodsContext(_ env: PageEnvironment) -> [String: Bool] {
        let methods = PasswordlessPages.offeredMethods(env)
        return [
            "password": methods.contains(.password), "emailCode": methods.contains(.emailCode),
            "magicLink": methods.contains(.magicLink),
            "passwordless": methods.contains(.emailCode) || methods.contains(.magicLink)
        ]
    }

    /// The app flow's parameters when present (nil for a plain sign-in), or why they are refused.
    func appRequest(_ parameters: Parameters) async throws -> Result<AppSignInRequest?, AppSignInRequest.Refusal> {
        try await AppSignInRequest.requested(in: parameters, oauth: oauth)
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
        let session: AuthSession
        do {
            switch try await PasswordSignIn(env: env.accounts, via: nil).attempt(
                email: email, password: password, request: request)
            {
            case .signedIn(let signedIn):
                session = signedIn
            case .secondStep(let challenge):
                // The password was right; the account asks for its second step. An app sign-in then
                // continues at `/auth/app/return`, which hands the app its code.
                guard let app, let oauth else {
                    return SecondStep.redirect(challenge, continueTo: redirect, secure: env.configuration.usesTLS)
                }
                var response = SecondStep.redirect(challenge, continueTo: AppFlow.returnPath, secure: env.configuration.usesTLS)
                oauth.appFlow.remember(app, in: &response, now: env.clock(), secure: env.configuration.usesTLS)
                return response
            case .refused(.throttled(let wait)):
                errors.add("form", Wait.signInBackOff(wait, now: env.clock()))
                return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 429)
                    .retrying(after: wait)
            case .refused(.emailNotVerified(let address)):
                return .redirect(
                    to: URLQuery.path("/auth/verify", [("email", address), ("notice", Notice.verifyFirst.rawValue)]))
            case .refused(.disabled):
                errors.add("form", AccountDisabled.pageMessage)
                return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 403)
            case .refused:
                errors.add("form", AuthError.invalidCredentials.pageMessage)
                return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 401)
            }
        } catch is SignInMethodOff {
            errors.add("form", "Signing in with a password is turned off here. Ask for a sign-in email instead.")
            return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 403)
        } catch let error as AuthError {
            errors.add("form", error.pageMessage)
            return await render(visit, email: email, redirect: redirect, app: app, errors: errors, status: 502)
        }
        var response = Response.redirect(to: redirect)
        if let app, let oauth {
            response = try await HostedSignIn(feature: oauth).redirect(for: session.user, request: app, httpRequest: request)
            AppFlow.forget(in: &response, secure: env.configuration.usesTLS)
        }
        try await env.sessions.start(session, replacing: visit.signedIn, request: request, response: &response)
        env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
        return response
    }
}
