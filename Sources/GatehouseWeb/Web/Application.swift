import Accounts
import AuthCore
import Foundation
import HTTPServer
import Logging
import OAuth
import Secrets

/// Gatehouse's web front-end: account pages, dev mailbox and static assets, as one responder.
/// Users are reached only through the seam (`AuthAPI`); Gatehouse's own state through `Accounts`.
public struct Application: Sendable {
    private let router: Router
    /// The test controls' faults and request ledger around every request; nil with `--no-test-controls`.
    private let testControls: TestControlsDispatch?
    private let staticFiles: StaticFiles
    private let accounts: Accounts
    /// The Descope project ids the Descope-compatible API answers for (shown in the startup log).
    public let descopeProjectIDs: [String]
    /// The key the SuperTokens-core API asks of every caller (shown in the startup log).
    public let superTokensAPIKey: String

    public init(
        configuration: WebConfiguration, backend: any AuthAPI,
        database: AccountsDatabase, hasher: KeyedHash, passwords: PasswordHasher,
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger,
        oauth: OAuthSettings? = nil, templates: TemplateRenderer? = nil
    ) async throws {
        // `templates` is a renderer already loaded from `templatesDirectory`: the test suites start
        // hundreds of servers, and parsing the templates for each was a fifth of their CPU.
        let renderer: TemplateRenderer
        if let templates {
            renderer = templates
        } else {
            renderer = try await TemplateRenderer(directory: configuration.templatesDirectory)
        }
        let accounts = Accounts(
            backend: backend, database: database, hasher: hasher, passwords: passwords,
            rateLimits: configuration.rateLimits, sessionLifetime: configuration.sessionLifetime,
            secureCookies: configuration.usesTLS, passwordRules: configuration.passwordRules,
            passkeyChallengeLifetime: configuration.passkeyChallengeLifetime, signInMethods: configuration.signInMethods,
            webhookPolicy: configuration.webhookPolicy, impersonationReasonRule: configuration.impersonationReasonRule,
            webhookBox: try SecretBox(key: hasher.derivedKey(for: "webhook-secrets")),
            clock: clock, logger: logger)
        // The Descope project ids, made at first start when none is configured, so the console can
        // show the ones this server answers for.
        let descopeProject =
            configuration.descopeProjectIDs.isEmpty
            ? DescopeProject.generated(from: try database.secretKey(named: "descope-project-id"))
            : DescopeProject(ids: configuration.descopeProjectIDs)
        var configuration = configuration
        configuration.descopeProjectIDs = descopeProject.ids
        let superTokensAPIKey = configuration.superTokensAPIKey ?? SuperTokensAPIKey.generated(from: hasher)
        configuration.superTokensAPIKey = superTokensAPIKey
        self.superTokensAPIKey = superTokensAPIKey
        // The private signing keys, sealed at rest under the key file (`AccountsDatabase.signingKey`).
        let signingKeys = try SecretBox(key: hasher.derivedKey(for: "signing-keys"))
        // Sign-in providers and apps, with the registry the pages (app branding) and the OAuth routes share.
        let providers = oauth.map { settings in
            (settings: settings, registry: ProviderRegistry(database: database, secretBox: settings.secretBox, clock: clock))
        }
        self.accounts = accounts
        await accounts.startBackgroundWork()
        let env = PageEnvironment(
            configuration: configuration, accounts: accounts,
            mailbox: try DevMailbox(database: database, hasher: hasher, clock: clock), renderer: renderer,
            csrf: CSRFGuard(hasher: hasher),
            appFlowBrands: providers.map { AppFlowBrands(appFlow: AppFlow(hasher: hasher), registry: $0.registry, clock: clock) })
        let staticFiles = StaticFiles(root: configuration.publicDirectory)
        self.staticFiles = staticFiles

        var router = Router(logger: logger) { status, message in
            Self.errorPage(status: status, message: message, renderer: renderer)
        }
        // Each API family answers errors in its own envelope, for its routes and its unknown paths.
        router.errors(under: "/_/api") { status, message in
            APIError.response(status: status, code: APIError.code(for: status), message: message)
        }
        router.errors(under: "/api", PocketBaseError.renderer)
        router.errors(under: "/api/auth", InsForgeError.renderer)
        router.errors(under: "/api/v1", MailpitAPI.renderer)
        router.errors(under: "/v1/auth", DescopeError.renderer)
        router.errors(under: "/v2/keys", DescopeError.renderer)
        router.errors(under: "/v1/mgmt", DescopeError.renderer)
        router.errors(under: "/v2/mgmt", DescopeError.renderer)
        router.page(.get, "/", env) { visit in .redirect(to: visit.user == nil ? "/auth/sign-in" : "/account") }
        // The admin API's OpenAPI 3.1 document (Public/openapi/admin-api.json), readable without a token.
        router.on(.get, "/_/api/openapi.json") { request, _ in
            staticFiles.response(for: "openapi/admin-api.json", request: request)
                ?? APIError.response(status: 404, code: "NOT_FOUND", message: "The OpenAPI document is missing from the assets.")
        }
        router.on(.get, "/api/health") { _, _ in
            try .json(Health(code: 200, message: "API is healthy."))
        }
        PasswordStrengthMeter(env: env).register(on: &router)
        VerificationPages(env: env).register(on: &router)
        NotMePages(env: env).register(on: &router)
        let insForge = InsForgeAPI(
            env: env, tokens: InsForgeTokens(env: env, signer: HS256Token(derivedFrom: hasher, context: "insforge-api-tokens")))
        insForge.register(on: &router)
        descopeProjectIDs = descopeProject.ids
        let descope = DescopeAPI(
            env: env, project: descopeProject,
            tokens: DescopeTokens(
                env: env,
                signer: try ES256Signer(
                    rawPrivateKey: database.signingKey(named: "descope-api-signing", sealedWith: signingKeys)),
                sessionLifetime: configuration.descopeSessionLifetime, refreshLifetime: configuration.descopeRefreshLifetime),
            registry: providers?.registry)
        descope.register(on: &router)
        let oauthFeature = try providers.map { settings, registry in
            OAuthFeature(
                env: env, settings: settings, registry: registry,
                client: ProviderClient(http: settings.http),
                tokens: insForge.tokens,
                hasher: hasher,
                testSigner: try ES256Signer(
                    rawPrivateKey: database.signingKey(named: OAuthFeature.testSigningKeyName, sealedWith: signingKeys)))
        }
        SignUpPages(env: env, oauth: oauthFeature).register(on: &router)
        let signInPages = SignInPages(env: env, oauth: oauthFeature)
        signInPages.register(on: &router)
        PasswordlessPages(env: env, signIn: signInPages).register(on: &router)
        EnchantedLinkPage(env: env).register(on: &router)
        AccountPages(env: env, servesLinkedAccounts: oauthFeature == nil).register(on: &router)
        SessionsPages(env: env).register(on: &router)
        SecondStepPages(env: env).register(on: &router)
        SecurityPages(env: env).register(on: &router)
        PasskeyPages(env: env).register(on: &router)
        TOTPPages(env: env).register(on: &router)
        EmailChangePages(env: env).register(on: &router)
        PasswordResetPages(env: env).register(on: &router)
        if let oauthFeature {
            OAuthPages(feature: oauthFeature).register(on: &router)
            HostedAppPages(feature: oauthFeature).register(on: &router)
            LinkedAccountsPages(feature: oauthFeature).register(on: &router)
            TestIdentityProviderPages(feature: oauthFeature).register(on: &router)
            TestIdentityProviderAPI(feature: oauthFeature).register(on: &router)
            ProviderAdminAPI(feature: oauthFeature).register(on: &router)
            ProviderConsolePage(feature: oauthFeature).register(on: &router)
            AppConsolePage(feature: oauthFeature).register(on: &router)
            ProviderEditPage(feature: oauthFeature).register(on: &router)
            InsForgeOAuthRoutes(feature: oauthFeature, api: insForge).register(on: &router)
            DescopeOAuthRoutes(feature: oauthFeature, api: descope).register(on: &router)
        }
        DescopeWebAuthnRoutes(api: descope).register(on: &router)
        MailboxPages(env: env).register(on: &router)
        MailboxLive(env: env).register(on: &router)
        if configuration.testControls != .off { MailpitAPI(env: env).register(on: &router) }
        ConsolePages(env: env).register(on: &router)
        ConsoleSecurityPages(env: env).register(on: &router)
        ConsolePasskeyPages(env: env).register(on: &router)
        AuditPages(env: env).register(on: &router)
        ConsoleUserList(env: env).register(on: &router)
        ConsoleBulkActions(env: env).register(on: &router)
        ConsoleUserPage(env: env).register(on: &router)
        ImpersonationPages(env: env).register(on: &router)
        TestUserPages(env: env).register(on: &router)
        ManagementKeyPages(env: env).register(on: &router)
        StaffPage(env: env).register(on: &router)
        AdminUsersAPI(env: env).register(on: &router)
        TestUsersAPI(env: env).register(on: &router)
        WebhooksAPI(env: env).register(on: &router)
        WebhookBinPages(env: env).register(on: &router)
        WebhookConsolePages(env: env).register(on: &router)
        let pocketBase = PocketBaseAPI(
            env: env,
            tokens: PocketBaseTokens(env: env, signer: HS256Token(derivedFrom: hasher, context: "pocketbase-api-tokens")),
            oauth: oauthFeature)
        pocketBase.register(on: &router)
        let superTokens = try SuperTokensTokens(
            env: env, rawPrivateKey: database.signingKey(named: SuperTokensTokens.signingKeyName, sealedWith: signingKeys),
            refreshSeal: HS256Token(derivedFrom: hasher, context: "supertokens-refresh-tokens"))
        SuperTokensCore(env: env, tokens: superTokens).register(on: &router)
        let fdi = SuperTokensFDI(env: env, tokens: superTokens, oauth: oauthFeature)
        fdi.register(on: &router)
        let signIns = TestSignInAnswers(
            env: env, pocketBase: pocketBase, insForge: insForge, descope: descope, superTokens: superTokens)
        if configuration.testControls != .off {
            let testControlsAPI = TestControlsAPI(env: env)
            testControlsAPI.register(on: &router)
            TestSignInRoutes(api: testControlsAPI, answers: signIns).register(on: &router)
        }
        TestingPage(env: env, signIns: signIns).register(on: &router)
        Self.mountStaticFiles(from: configuration.publicDirectory, files: staticFiles, renderer: renderer, on: &router)
        self.router = router
        testControls =
            configuration.testControls == .off
            ? nil
            : TestControlsDispatch(
                router: router, faults: accounts.faults, ledger: accounts.requestLedger,
                wayIn: WayIn(fdiBasePath: fdi.basePath), clock: clock)
    }

    /// The function the HTTP server calls for every request.
    public var responder: Responder {
        let (router, testControls) = (router, testControls)
        return { request in
            var response =
                if let testControls { await testControls.respond(to: request) } else { await router.respond(to: request) }
            SecurityHeaders.apply(to: &response, path: request.path)
            return response
        }
    }

    /// An HTTP server (not started) serving this application: its responder, and its shapes for
    /// the errors the server answers before routing.
    /// Stops the work that runs beside requests; call it after the server's shutdown.
    public func stop() async {
        await accounts.stopBackgroundWork()
    }

    public func server(configuration: HTTPServer.Configuration, logger: Logger) -> HTTPServer {
        HTTPServer(configuration: configuration, logger: logger, responder: responder, rejections: rejections)
    }

    /// How the errors the server answers before routing are shaped: by the API family of their path,
    /// with Gatehouse's security headers.
    private var rejections: RejectionRenderer {
        let render = router.rejectionRenderer
        return { status, message, rawPath in
            var response = render(status, message, rawPath)
            SecurityHeaders.apply(to: &response, path: rawPath)
            return response
        }
    }

    /// Serves each top-level entry of `Public/`: a folder as `/name/*`, a file as `/name`.
    private static func mountStaticFiles(
        from directory: String, files: StaticFiles, renderer: TemplateRenderer,
        on router: inout Router
    ) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries.sorted() where !entry.hasPrefix(".") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory + "/" + entry, isDirectory: &isDirectory) else { continue }
            let pattern = isDirectory.boolValue ? "/\(entry)/*" : "/\(entry)"
            router.on(.get, pattern) { request, _ in
                files.response(for: String(request.path.dropFirst()), request: request)
                    ?? errorPage(status: 404, message: "There is no file at this address.", renderer: renderer)
            }
        }
    }

    /// An error as the account pages show it.
    static func errorPage(status: Int, message: String, renderer: TemplateRenderer) -> Response {
        let heading: String
        switch status {
        case 404: heading = "Page not found"
        case 405: heading = "Not allowed here"
        case 413: heading = "That was too much to send"
        case 400..<500: heading = "Something in that request was off"
        default: heading = "Something went wrong on our side"
        }
        return renderer.errorPage(status: status, heading: heading, message: message)
    }
}

/// PocketBase's health reply, so scripts written for it can wait on Gatehouse the same way.
private struct Health: Encodable {
    var code: Int
    var message: String
}

extension APIError {
    /// A stable upper-case code for a status without a more specific one.
    static func code(for status: Int) -> String {
        switch status {
        case 400: return "BAD_REQUEST"
        case 401: return "UNAUTHORIZED"
        case 403: return "FORBIDDEN"
        case 404: return "NOT_FOUND"
        case 405: return "METHOD_NOT_ALLOWED"
        case 413: return "PAYLOAD_TOO_LARGE"
        case 429: return "TOO_MANY_REQUESTS"
        default: return status >= 500 ? "INTERNAL_ERROR" : "ERROR"
        }
    }
}
