import Accounts
import AuthCore
import Foundation
import HTTPServer
import PasswordStrength
import ServerSeam

/// Settings the web front-end needs; the CLI fills them from flags and `GATEHOUSE_*` variables.
public struct WebConfiguration: Sendable {
    /// The URL people reach Gatehouse at, used to build origins and mailed links.
    public var publicBaseURL: String
    public var templatesDirectory: String
    public var publicDirectory: String
    /// How long a browser session lives after sign-in.
    public var sessionLifetime: TimeInterval
    /// Open the dev mailbox without authentication (true only while bound to loopback).
    public var mailboxIsOpen: Bool
    /// Appended to asset URLs so a new build is never served stale CSS.
    public var assetVersion: String
    /// Throttling of sign-ins, code checks and mail sends; switched off only for load tests.
    public var rateLimits: Bool
    /// Shown in the console header: which backend the users live in.
    public var backendDescription: String
    /// What the sign-in page offers (`--sign-in-methods`).
    public var signInMethods: Set<SignInMethod>
    /// Whether a right sign-in code or link for an address without an account creates a verified
    /// one (`--passwordless-sign-up`); off: such addresses get no mail and no account.
    public var passwordlessSignUp: Bool

    public init(
        publicBaseURL: String, templatesDirectory: String, publicDirectory: String,
        sessionLifetime: TimeInterval = 7 * 24 * 3600, mailboxIsOpen: Bool = true,
        assetVersion: String = "1", rateLimits: Bool = true,
        backendDescription: String = "Embedded SQLite",
        signInMethods: Set<SignInMethod> = Set(SignInMethod.allCases), passwordlessSignUp: Bool = false
    ) {
        self.publicBaseURL = publicBaseURL
        self.templatesDirectory = templatesDirectory
        self.publicDirectory = publicDirectory
        self.sessionLifetime = sessionLifetime
        self.mailboxIsOpen = mailboxIsOpen
        self.assetVersion = assetVersion
        self.rateLimits = rateLimits
        self.backendDescription = backendDescription
        self.signInMethods = signInMethods
        self.passwordlessSignUp = passwordlessSignUp
    }

    /// What reserved test addresses contain (`--test-address-suffix`): their codes are `424242`
    /// and nothing is mailed to them; the console says so on such an account's page. Nil: none.
    public var testAddresses: TestAddresses? = nil
    /// Where the test controls answer (`--test-controls`, `--no-test-controls`): `TestControls`.
    public var testControls: TestControls = .onLoopback

    /// The key apps on InsForge's SDKs must send as `Bearer` on signed-out calls; nil accepts any
    /// (local apps need no set-up).
    public var anonKey: String? = nil

    /// The Descope project ids the Descope-compatible API answers for (`--descope-project-id`);
    /// empty: one made at first start and kept in the database.
    public var descopeProjectIDs: [String] = []
    /// How long a Descope-API session JWT lives (Descope's default: 10 minutes).
    public var descopeSessionLifetime: TimeInterval = 10 * 60
    /// How long a passkey ceremony's challenge may be answered (`--passkey-challenge-lifetime`).
    public var passkeyChallengeLifetime: TimeInterval = 360
    /// How webhooks are delivered (`--webhook-retry-delays`, `--webhook-any-host`).
    public var webhookPolicy: WebhookPolicy = .standard
    /// How long a Descope-API refresh JWT, and the session behind it, lives (Descope's default: 4 weeks).
    public var descopeRefreshLifetime: TimeInterval = 28 * 24 * 3600

    /// Descope's "manage in cookies" (`--descope-token-cookies`): the JWTs are set as the `DS` and
    /// `DSR` cookies and the body's `refreshJwt` is left empty, as Descope answers such a project.
    public var descopeTokenCookies = false
    /// Origins (`scheme://host[:port]`) whose addresses Descope's links may open
    /// (`--descope-redirect-origin`), beside registered app callbacks and loopback origins.
    public var descopeRedirectOrigins: [String] = []
    /// The key a SuperTokens backend SDK must send as `api-key` (`--supertokens-api-key`); nil
    /// has `Application` make one (`SuperTokensAPIKey`).
    public var superTokensAPIKey: String? = nil

    /// How long the SuperTokens-core API's access tokens live (`--supertokens-access-token-validity`,
    /// the core's `access_token_validity`).
    public var superTokensAccessTokenValidity: TimeInterval = 3600

    /// Where SuperTokens' frontend API (FDI) answers (`--supertokens-api-base-path`, the frontend
    /// SDKs' `apiBasePath`); its routes (`signin`) sit beside the pages' (`sign-in`) under `/auth`.
    public var superTokensAPIBasePath = "/auth"
    /// Where the Rownd Hub answers (`--rownd-hub-path`): the app's `Rownd.config.baseUrl` is the
    /// server's address and this path.
    public var rowndHubPath = "/rownd-hub"
    /// The URL scheme of the app on the Rownd SDK (`--rownd-app-scheme`, its
    /// `Rownd.config.deepLinkScheme`; the SDK's default): a magic link the Hub mails, opened on the
    /// phone, hands on to `{scheme}://account/login…`, and a post-sign-in redirect may name it.
    public var rowndAppScheme = "rowndsupertokens"
    /// Origins (`scheme://host[:port]`) of web apps that call the FDI from a browser
    /// (`--supertokens-app-origin`): answered with CORS, credentials allowed.
    public var superTokensAppOrigins: [String] = []
    /// The app's website and its auth pages, as SuperTokens' `websiteDomain` + `websiteBasePath`
    /// (`--supertokens-website-url`, e.g. `https://app.example/auth`): with it, the FDI's
    /// passwordless mails carry a magic link to `{url}/verify?preAuthSessionId=…#linkCode` too.
    public var superTokensWebsiteURL: String? = nil

    /// The one password rule (`--password-min-score`); the embedded backend gets the same value.
    public var passwordRules: PasswordRules = .default

    /// Whether staff must say why they impersonate (`--impersonation-reason`).
    public var impersonationReasonRule: ImpersonationReason.Rule = .optional

    /// Cookies get `Secure` when people reach Gatehouse over TLS.
    var usesTLS: Bool { publicBaseURL.lowercased().hasPrefix("https://") }

    /// This server's public address (`--public-url`), else the address `request` reached it by
    /// (a host the allow-list passed): what a mailed link or an SDK's base URL names.
    func publicBaseURL(reachedBy request: Request) -> String {
        publicBaseURL.isEmpty ? "http://" + (request.headers["Host"] ?? "127.0.0.1") : publicBaseURL
    }
}
