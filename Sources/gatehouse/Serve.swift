import Accounts
import ArgumentParser
import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import LocalAuth
import Logging
import MailCatcher
import PasswordStrength
import Secrets
import ServerSeam
import Store

/// `gatehouse serve`: opens the SQLite file, wires the embedded backend to the web front-end and
/// serves until SIGINT/SIGTERM, finishing requests in flight.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the account pages, dev mailbox and APIs.",
        discussion:
            "Every option can also be set with a GATEHOUSE_* environment variable (named in its help); a flag wins over the variable."
    )

    @Option(help: "Address to listen on. Loopback by default; anything else closes the dev mailbox. (GATEHOUSE_HOST)")
    var host: String = Environment.value("HOST") ?? "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one. (GATEHOUSE_PORT)")
    var port: Int = Environment.value("PORT").flatMap(Int.init) ?? 8080

    @Option(help: "SQLite file holding users, sessions, mail and audit; created if missing. (GATEHOUSE_DB)")
    var db: String = Environment.value("DB") ?? "gatehouse.sqlite"

    @Option(
        help:
            "Where users live: local (the embedded SQLite store), pocketbase (proxy a real PocketBase ≥ 0.23 at --backend-url) or insforge (proxy an InsForge-compatible /api/auth at --backend-url); Gatehouse keeps only its sessions, mailbox and audit. (GATEHOUSE_BACKEND)"
    )
    var backend: BackendKind = Environment.value("BACKEND").flatMap(BackendKind.init(rawValue:)) ?? .local

    @Option(
        help: "The proxied backend's URL, e.g. http://127.0.0.1:8090. Required with --backend pocketbase. (GATEHOUSE_BACKEND_URL)"
    )
    var backendURL: String?

    @Option(
        help:
            "PocketBase: EMAIL:PASSWORD of a superuser (_superusers), for reading accounts, verification and setup. InsForge: its admin API key. Visible in the process list: prefer GATEHOUSE_BACKEND_ADMIN or --backend-admin-file. (GATEHOUSE_BACKEND_ADMIN)"
    )
    var backendAdmin: String?

    @Option(
        help:
            "File holding EMAIL:PASSWORD of the PocketBase superuser (one line), so the password is not in the process list. (GATEHOUSE_BACKEND_ADMIN_FILE)"
    )
    var backendAdminFile: String?

    @Option(help: "The PocketBase auth collection holding the accounts. (GATEHOUSE_BACKEND_COLLECTION)")
    var backendCollection: String = Environment.value("BACKEND_COLLECTION") ?? "users"

    @Option(
        help:
            "How new accounts verify their email: none, code (6 digits) or link. Embedded backend only; a proxied PocketBase verifies by its mailed link. (GATEHOUSE_VERIFICATION)"
    )
    var verification: VerificationMode = Environment.value("VERIFICATION").flatMap(VerificationMode.init(rawValue:)) ?? .code

    @Option(help: "URL people reach Gatehouse at, used in mailed links. Defaults to http://HOST:PORT. (GATEHOUSE_PUBLIC_URL)")
    var publicURL: String?

    @Option(
        help:
            "Another host name this server answers to (besides IP addresses, localhost and the public URL's host); repeat for several. Other names get 421, which stops DNS-rebinding pages. (GATEHOUSE_ALLOWED_HOSTS, comma-separated)"
    )
    var allowedHost: [String] = []

    @Option(help: "Folder with the page templates. (GATEHOUSE_TEMPLATES)")
    var templates: String = Environment.value("TEMPLATES") ?? "Templates"

    @Option(help: "Folder with static assets. (GATEHOUSE_PUBLIC)")
    var assets: String = Environment.value("PUBLIC") ?? "Public"

    @Option(
        help: "Log level: trace, debug, info, notice, warning, error, critical. (GATEHOUSE_LOG_LEVEL)",
        transform: Serve.logLevel(named:))
    var logLevel: Logger.Level = Environment.value("LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info

    @Option(help: "Largest request body accepted, in bytes; larger ones get 413. (GATEHOUSE_MAX_BODY)")
    var maxBody: Int = Environment.value("MAX_BODY").flatMap(Int.init) ?? 1 << 20

    @Option(help: "Worker threads for HTTP; defaults to the number of cores. (GATEHOUSE_THREADS)")
    var threads: Int = Environment.value("THREADS").flatMap(Int.init) ?? ProcessInfo.processInfo.activeProcessorCount

    @Option(
        help:
            "Also accept SMTP on HOST:PORT (e.g. 127.0.0.1:2525) into the dev mailbox, like Mailpit; off by default. (GATEHOUSE_SMTP)"
    )
    var smtp: String?

    @Option(
        help: """
            The anon key apps on InsForge's SDKs send as Bearer on signed-out calls; without it any key \
            is accepted. (GATEHOUSE_ANON_KEY)
            """)
    var anonKey: String?

    @Option(
        help: """
            The API key SuperTokens backend SDKs must send (their api_key) to the SuperTokens-core API; \
            without it, one is made at first start and shown in the startup log and the console. Visible in \
            the process list: prefer GATEHOUSE_SUPERTOKENS_API_KEY. (GATEHOUSE_SUPERTOKENS_API_KEY)
            """)
    var supertokensAPIKey: String?

    @Option(
        help: """
            Seconds a SuperTokens-core API access token lives (the core's access_token_validity). \
            (GATEHOUSE_SUPERTOKENS_ACCESS_TOKEN_VALIDITY)
            """)
    var supertokensAccessTokenValidity: Int = Environment.value("SUPERTOKENS_ACCESS_TOKEN_VALIDITY").flatMap { Int($0) } ?? 3600

    @Option(
        help:
            "What the sign-in page offers, comma-separated: password, email-code (a mailed 6-digit code), magic-link (a mailed single-use link). Methods the backend lacks are hidden (PocketBase has no magic links). (GATEHOUSE_SIGN_IN_METHODS)"
    )
    var signInMethods: String = Environment.value("SIGN_IN_METHODS") ?? "password,email-code,magic-link"

    @Flag(
        inversion: .prefixedNo,
        help:
            "Let a right sign-in code or link for an address with no account create a verified account (embedded backend). Off: such addresses get no mail and no account. (GATEHOUSE_PASSWORDLESS_SIGN_UP=1)"
    )
    var passwordlessSignUp: Bool =
        Environment.value("PASSWORDLESS_SIGN_UP").map { ["1", "true", "yes", "on"].contains($0.lowercased()) } ?? false

    @Option(
        help:
            "Reserve test addresses: every emailed code for an address containing this (e.g. +gatehouse_test@) is 424242 and nothing is mailed to it. Loopback and the embedded backend only. (GATEHOUSE_TEST_ADDRESS_SUFFIX)"
    )
    var testAddressSuffix: String?

    @Flag(
        inversion: .prefixedNo,
        help:
            "The test controls (Descope's management API for test users, the Mailpit-compatible mailbox API) answer peers off loopback too; --no-test-controls leaves them out. Default: loopback peers only."
    )
    var testControls: Bool?

    @Option(help: "A JSON seed file whose accounts are made before serving (as `gatehouse seed`). (GATEHOUSE_SEED)")
    var seed: String?

    @Option(help: "Seconds a passkey ceremony's challenge may be answered (default 360). (GATEHOUSE_PASSKEY_CHALLENGE_LIFETIME)")
    var passkeyChallengeLifetime: Int = Environment.value("PASSKEY_CHALLENGE_LIFETIME").flatMap(Int.init) ?? 360

    @Option(
        help:
            "Seconds between a webhook's tries, comma-separated; it gives up after one more try than there are waits (default 5,30,120,600,1800,3600,3600). (GATEHOUSE_WEBHOOK_RETRY_DELAYS)"
    )
    var webhookRetryDelays: String?

    @Flag(help: "Let webhook endpoints name any host, not only loopback ones. (GATEHOUSE_WEBHOOK_ANY_HOST=1)")
    var webhookAnyHost: Bool =
        Environment.value("WEBHOOK_ANY_HOST").map { ["1", "true", "yes", "on"].contains($0.lowercased()) } ?? false

    @Option(
        help: """
            A Descope project id the Descope-compatible API (/v1/auth) answers for; repeat it or give a \
            comma-separated list. Without it, one is made at first start and kept in the database. \
            (GATEHOUSE_DESCOPE_PROJECT_ID)
            """)
    var descopeProjectId: [String] = []

    @Option(help: "Seconds a Descope-API session JWT lives. (GATEHOUSE_DESCOPE_SESSION_LIFETIME)")
    var descopeSessionLifetime: Int = Environment.value("DESCOPE_SESSION_LIFETIME").flatMap(Int.init) ?? 600

    @Option(help: "Seconds a Descope-API refresh JWT, and its session, lives. (GATEHOUSE_DESCOPE_REFRESH_LIFETIME)")
    var descopeRefreshLifetime: Int = Environment.value("DESCOPE_REFRESH_LIFETIME").flatMap(Int.init) ?? 28 * 24 * 3600

    @Flag(
        help: """
            Answer Descope-API sign-ins with the DS and DSR cookies and an empty refreshJwt in the body, as \
            a Descope project whose tokens are managed in cookies. (GATEHOUSE_DESCOPE_TOKEN_COOKIES=1)
            """)
    var descopeTokenCookies: Bool =
        Environment.value("DESCOPE_TOKEN_COOKIES").map { ["1", "true", "yes", "on"].contains($0.lowercased()) } ?? false

    @Option(
        help: """
            Where SuperTokens' frontend API (FDI) answers: the frontend SDKs' apiBasePath. \
            (GATEHOUSE_SUPERTOKENS_API_BASE_PATH)
            """)
    var supertokensAPIBasePath: String = Environment.value("SUPERTOKENS_API_BASE_PATH") ?? "/auth"

    @Option(
        help: """
            Where the Rownd Hub answers: an app on the Rownd SDK sets Rownd.config.baseUrl to this server's \
            address and this path. (GATEHOUSE_ROWND_HUB_PATH)
            """)
    var rowndHubPath: String = Environment.value("ROWND_HUB_PATH") ?? "/rownd-hub"

    @Option(
        help: """
            The URL scheme of the app on the Rownd SDK (its Rownd.config.deepLinkScheme): a magic link the \
            Hub mails opens the app through it, and the Hub sends people on to it only (besides the \
            SuperTokens frontends' origins). (GATEHOUSE_ROWND_APP_SCHEME)
            """)
    var rowndAppScheme: String = Environment.value("ROWND_APP_SCHEME") ?? "rowndsupertokens"

    @Option(
        help: """
            An origin (scheme://host[:port]) of a web app that calls the SuperTokens frontend API from a \
            browser (CORS with credentials); repeat for several. (GATEHOUSE_SUPERTOKENS_APP_ORIGINS, comma-separated)
            """)
    var supertokensAppOrigin: [String] = []

    @Option(
        help: """
            The app's website and its auth pages (SuperTokens' websiteDomain + websiteBasePath, e.g. \
            https://app.example/auth): the frontend API's passwordless mails then carry a magic link to \
            URL/verify. (GATEHOUSE_SUPERTOKENS_WEBSITE_URL)
            """)
    var supertokensWebsiteURL: String?

    @Option(
        help: """
            An origin (scheme://host[:port]) whose addresses Descope-API links (magic, enchanted, reset, \
            update/email) may open, besides registered app callbacks and loopback origins; repeat for \
            several. (GATEHOUSE_DESCOPE_REDIRECT_ORIGINS, comma-separated)
            """)
    var descopeRedirectOrigin: [String] = []

    @Option(
        help: """
            The weakest password accepted, as a zxcvbn score from 0 to 4: 2 (the default) refuses passwords \
            guessed within a million tries, such as 'password' and '12345678'; 0 checks only the length. \
            (GATEHOUSE_PASSWORD_MIN_SCORE)
            """)
    var passwordMinScore: Int = Environment.value("PASSWORD_MIN_SCORE").flatMap(Int.init) ?? PasswordRules.defaultMinimumScore

    @Option(
        help: """
            Whether staff must give a reason (and may give a ticket link) to impersonate a user: optional or \
            required. The reason shows in the impersonation's banner, the audit log and the \
            impersonation.started webhook. (GATEHOUSE_IMPERSONATION_REASON)
            """)
    var impersonationReason: ImpersonationReason.Rule =
        Environment.value("IMPERSONATION_REASON").flatMap(ImpersonationReason.Rule.init(rawValue:)) ?? .optional

    @Flag(help: "Turn off sign-in, code and mail throttling. For load tests only; never on a shared machine.")
    var noRateLimits = false

    @OptionGroup var oauth: OAuthOptions
}

/// Backends `--backend` accepts.
enum BackendKind: String, ExpressibleByArgument, CaseIterable {
    case local
    case pocketbase
    case insforge
}

extension VerificationMode: ExpressibleByArgument {}
extension ImpersonationReason.Rule: ExpressibleByArgument {}

extension Serve {
    /// `--log-level`'s value, read without a retroactive conformance of swift-log's type to the
    /// argument parser's protocol.
    static func logLevel(named name: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: name) else {
            throw ValidationError("'\(name)' is not a log level: use trace, debug, info, notice, warning, error or critical.")
        }
        return level
    }
}

/// Reads `GATEHOUSE_*` environment variables.
enum Environment {
    static func value(_ name: String) -> String? {
        ProcessInfo.processInfo.environment["GATEHOUSE_" + name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
