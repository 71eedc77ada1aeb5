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

    /// `--smtp`, else `GATEHOUSE_SMTP`; nil when the mail catcher is off.
    private var smtpAddress: SMTPListenAddress? {
        (smtp ?? Environment.value("SMTP")).flatMap(SMTPListenAddress.init)
    }

    /// How the console names where users live.
    private var backendDescription: String {
        switch backend {
        case .local: return "Embedded SQLite · \(db)"
        case .pocketbase: return "PocketBase at \(resolvedBackendURL ?? "?")"
        case .insforge: return "InsForge at \(resolvedBackendURL ?? "?")"
        }
    }

    @OptionGroup var oauth: OAuthOptions

    /// The host names answered: `--allowed-host` (else `GATEHOUSE_ALLOWED_HOSTS`) and the public URL's host.
    private var allowedHosts: HostAllowList {
        let extra =
            allowedHost.isEmpty
            ? (Environment.value("ALLOWED_HOSTS")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? [])
            : allowedHost
        return HostAllowList(names: extra + [resolvedPublicURL.flatMap { URL(string: $0)?.host }].compactMap { $0 })
    }

    /// A repeatable option's values (each may be a comma-separated list), else the environment
    /// variable `GATEHOUSE_<variable>`'s comma-separated list.
    private static func list(_ values: [String], else variable: String) -> [String] {
        (values.isEmpty ? [Environment.value(variable) ?? ""] : values)
            .flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
    }

    /// `--public-url`, else `GATEHOUSE_PUBLIC_URL`.
    private var resolvedPublicURL: String? { publicURL ?? Environment.value("PUBLIC_URL") }
    private var resolvedBackendURL: String? { backendURL ?? Environment.value("BACKEND_URL") }
    /// `--backend-admin`, else `GATEHOUSE_BACKEND_ADMIN`, else the first line of `--backend-admin-file`.
    private var resolvedBackendAdmin: String? {
        if let value = backendAdmin ?? Environment.value("BACKEND_ADMIN") { return value }
        guard let path = backendAdminFile ?? Environment.value("BACKEND_ADMIN_FILE"),
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        return text.split(whereSeparator: \.isNewline).first.map(String.init)
    }

    /// `EMAIL:PASSWORD` split at the first colon (passwords may contain colons).
    private var superuser: (email: String, password: String)? {
        guard let value = resolvedBackendAdmin, let colon = value.firstIndex(of: ":") else { return nil }
        let email = String(value[..<colon])
        let password = String(value[value.index(after: colon)...])
        return email.isEmpty || password.isEmpty ? nil : (email, password)
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard maxBody >= 1024 else { throw ValidationError("--max-body must be at least 1024 bytes.") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1.") }
        guard (0...4).contains(passwordMinScore) else { throw ValidationError("--password-min-score must be 0 to 4.") }
        if let publicURL = resolvedPublicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            throw ValidationError("--public-url must start with http:// or https://.")
        }
        if let problem = WebConfiguration.rowndAppSchemeProblem(rowndAppScheme) {
            throw ValidationError("--rownd-app-scheme: \(problem)")
        }
        guard SignInMethod.parseList(signInMethods) != nil else {
            throw ValidationError("--sign-in-methods takes a comma-separated list of password, email-code, magic-link.")
        }
        if let text = smtp ?? Environment.value("SMTP"), SMTPListenAddress(text) == nil {
            throw ValidationError("--smtp must be HOST:PORT, e.g. 127.0.0.1:2525 or [::1]:2525.")
        }
        if backend != .local {
            guard let url = resolvedBackendURL, url.hasPrefix("http://") || url.hasPrefix("https://"), URL(string: url) != nil
            else {
                throw ValidationError("--backend \(backend.rawValue) needs --backend-url http://HOST:PORT of the server.")
            }
        }
        if let suffix = resolvedTestAddressSuffix {
            guard TestAddresses(suffix: suffix) != nil else {
                throw ValidationError("--test-address-suffix needs some text, e.g. +gatehouse_test@.")
            }
            // A fixed code is no secret: only where nobody else can reach the server.
            guard Self.loopbackHosts.contains(host) else {
                throw ValidationError("--test-address-suffix works only on loopback (--host 127.0.0.1, ::1 or localhost).")
            }
            guard backend == .local else { throw ValidationError("--test-address-suffix works with the embedded backend only.") }
            guard testControls != false else {
                throw ValidationError("--test-address-suffix is a test control: drop --no-test-controls.")
            }
        }
        if seed ?? Environment.value("SEED") != nil, testControls == false {
            throw ValidationError("--seed is a test control: drop --no-test-controls.")
        }
        if backend == .pocketbase {
            guard superuser != nil else {
                throw ValidationError(
                    "--backend pocketbase needs EMAIL:PASSWORD of a PocketBase superuser: GATEHOUSE_BACKEND_ADMIN, --backend-admin-file or --backend-admin."
                )
            }
        }
    }

    /// `--test-address-suffix`, else `GATEHOUSE_TEST_ADDRESS_SUFFIX`.
    private var resolvedTestAddressSuffix: String? { testAddressSuffix ?? Environment.value("TEST_ADDRESS_SUFFIX") }

    /// The host names that bind to loopback only.
    static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "localhost"]

    /// `--password-min-score` as the one password rule.
    private var passwordRules: PasswordRules { PasswordRules(minimumScore: passwordMinScore) }

    /// The `secrets` row where earlier versions kept the keyed-hash key (now in the key file).
    static let keyedHashSecret = "keyed-hash"

    func run() async throws {
        let stopRequest = TerminationSignals()
        ProcessMemory.limitArenas(to: ProcessInfo.processInfo.activeProcessorCount)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "gatehouse")
        if backendAdmin != nil {
            // Still honoured (scripts use it), but argv is readable by every local user.
            logger.warning(
                "--backend-admin puts the backend's secret in the process list (/proc/PID/cmdline, ps), readable by every local user; set GATEHOUSE_BACKEND_ADMIN or use --backend-admin-file instead"
            )
        }
        if supertokensAPIKey != nil {
            logger.warning(
                "--supertokens-api-key puts the SuperTokens core's API key in the process list (/proc/PID/cmdline, ps), readable by every local user; set GATEHOUSE_SUPERTOKENS_API_KEY instead"
            )
        }
        let publicURL = resolvedPublicURL
        let database = try AppDatabase(path: db)
        let clock: @Sendable () -> Date = { Date() }
        let keyPath = oauth.keyFilePath(db: db)
        let keys = try ServerKeys.loadOrCreate(path: keyPath) { try database.legacySecret(named: Self.keyedHashSecret) }
        if try database.legacySecret(named: Self.keyedHashSecret) != nil {
            try database.deleteSecret(named: Self.keyedHashSecret)
            logger.notice("moved the keyed-hash key out of the database into \(keyPath)")
        }
        let hasher = try KeyedHash(key: keys.keyedHash)
        let passwords = try PasswordHasher()
        let loopback = Self.loopbackHosts.contains(host)
        let displayHost = host.contains(":") ? "[\(host)]" : host

        // The public URL is known only once the port is bound (port 0 picks one), so the backend reads it late.
        let baseURL = LateBox<String>()
        let pocketBase: PocketBaseBackend?
        let authBackend: any AuthAPI
        switch backend {
        case .local:
            pocketBase = nil
            var settings = LocalAccounts.Configuration(verification: verification, publicBaseURL: { baseURL.value ?? "" })
            settings.passwordRules = passwordRules
            settings.testAddresses = resolvedTestAddressSuffix.flatMap(TestAddresses.init(suffix:))
            let local = LocalAccounts(
                configuration: settings,
                database: database, hasher: passwords,
                mailer: try MailboxMailer(database: database, keyedHash: hasher, clock: clock),
                keyedHash: hasher, clock: clock, logger: logger)
            authBackend = LocalBackend(accounts: local)
        case .pocketbase:
            guard let backendURL = resolvedBackendURL.flatMap(URL.init(string:)) else {
                throw ValidationError("--backend pocketbase needs --backend-url http://HOST:PORT of the PocketBase server.")
            }
            let remote = PocketBaseBackend(
                configuration: .init(
                    baseURL: backendURL, collection: backendCollection, superuser: superuser),
                logger: Logger(label: "gatehouse.pocketbase"))
            pocketBase = remote
            authBackend = remote
        case .insforge:
            guard let backendURL = resolvedBackendURL.flatMap(URL.init(string:)) else {
                throw ValidationError("--backend insforge needs --backend-url http://HOST:PORT of the InsForge server.")
            }
            pocketBase = nil
            authBackend = InsForgeBackend(
                configuration: .init(
                    baseURL: backendURL, anonKey: anonKey ?? Environment.value("ANON_KEY") ?? "anon",
                    adminKey: resolvedBackendAdmin, verificationMode: verification),
                logger: Logger(label: "gatehouse.insforge"))
        }
        if let seedFile = seed ?? Environment.value("SEED") {
            let outcome = try await CommandLineTestData(backend: authBackend, database: database, logger: logger, clock: clock)
                .seed(file: seedFile, via: "serve-seed")
            logger.notice("seeded", metadata: ["created": "\(outcome.created.count)", "kept": "\(outcome.kept)"])
        }
        var web = WebConfiguration(
            publicBaseURL: publicURL ?? "", templatesDirectory: templates,
            publicDirectory: assets, mailboxIsOpen: loopback,
            assetVersion: String(Int(Date().timeIntervalSince1970), radix: 36),
            rateLimits: !noRateLimits, backendDescription: backendDescription,
            signInMethods: SignInMethod.parseList(signInMethods) ?? Set(SignInMethod.allCases),
            passwordlessSignUp: passwordlessSignUp)
        web.anonKey = anonKey ?? Environment.value("ANON_KEY")
        web.passwordRules = passwordRules
        web.impersonationReasonRule = impersonationReason
        web.testAddresses = resolvedTestAddressSuffix.flatMap(TestAddresses.init(suffix:))
        web.testControls =
            switch testControls {
            case nil: .onLoopback
            case true?: .everywhere
            case false?: .off
            }
        web.descopeProjectIDs = Self.list(descopeProjectId, else: "DESCOPE_PROJECT_ID")
        web.descopeTokenCookies = descopeTokenCookies
        web.descopeRedirectOrigins = Self.list(descopeRedirectOrigin, else: "DESCOPE_REDIRECT_ORIGINS")
        web.descopeSessionLifetime = TimeInterval(max(descopeSessionLifetime, 1))
        web.passkeyChallengeLifetime = TimeInterval(max(passkeyChallengeLifetime, 1))
        web.webhookPolicy = try Self.webhookPolicy(
            retryDelays: webhookRetryDelays ?? Environment.value("WEBHOOK_RETRY_DELAYS"), anyHost: webhookAnyHost)
        web.descopeRefreshLifetime = TimeInterval(max(descopeRefreshLifetime, 1))
        web.superTokensAPIKey = supertokensAPIKey ?? Environment.value("SUPERTOKENS_API_KEY")
        web.superTokensAccessTokenValidity = TimeInterval(max(1, supertokensAccessTokenValidity))
        web.superTokensAPIBasePath = "/" + supertokensAPIBasePath.split(separator: "/").joined(separator: "/")
        web.rowndHubPath = "/" + rowndHubPath.split(separator: "/").joined(separator: "/")
        web.rowndAppScheme = rowndAppScheme
        web.superTokensAppOrigins = Self.list(supertokensAppOrigin, else: "SUPERTOKENS_APP_ORIGINS")
        web.superTokensWebsiteURL = (supertokensWebsiteURL ?? Environment.value("SUPERTOKENS_WEBSITE_URL")).map {
            $0.hasSuffix("/") ? String($0.dropLast()) : $0
        }
        let app = try await Application(
            configuration: web,
            backend: authBackend, database: AccountsDatabase(database), hasher: hasher,
            passwords: passwords, clock: clock, logger: logger,
            oauth: try await oauth.settings(keys: keys, database: database, loopback: loopback, baseURL: { baseURL.value ?? "" }))
        let server = app.server(
            configuration: .init(
                host: host, port: port, threadCount: threads, maxBodyBytes: maxBody, allowedHosts: allowedHosts), logger: logger)
        try server.start()
        let url = publicURL ?? "http://\(displayHost):\(server.port)"
        baseURL.value = url
        if let pocketBase {
            // Point PocketBase's verification mail at /auth/verify-link and add the profile field.
            do {
                try await pocketBase.prepareCollection(verificationLinkBase: url)
            } catch {
                logger.error(
                    "could not prepare the PocketBase collection; verification mails keep PocketBase's own link",
                    metadata: ["backend": "\(resolvedBackendURL ?? "")", "error": "\(error)"])
            }
        }
        var listening: Logger.Metadata = [
            "db": "\(db)", "backend": "\(backend.rawValue)", "verification": "\(authBackend.verificationMode.rawValue)",
            "descope_project_ids": "\(app.descopeProjectIDs.joined(separator: ","))"
        ]
        // The key made at first start is shown to whoever starts the server; one they gave is theirs already.
        if web.superTokensAPIKey == nil { listening["supertokens_api_key"] = "\(app.superTokensAPIKey)" }
        logger.notice("Gatehouse listening on \(url)", metadata: listening)
        var catcher: MailCatcher?
        if let address = smtpAddress {
            let smtpServer = MailCatcher(
                host: address.host, port: address.port,
                mailer: try MailboxMailer(database: database, keyedHash: hasher, clock: clock), logger: logger)
            do {
                try await smtpServer.start()
            } catch {
                await server.shutdown(gracePeriod: .seconds(10))
                throw error
            }
            catcher = smtpServer
            let smtpHost = address.host.contains(":") ? "[\(address.host)]" : address.host
            logger.notice("SMTP mail catcher listening on \(smtpHost):\(smtpServer.port)")
            if !address.isLoopback {
                logger.warning(
                    "the SMTP mail catcher accepts mail from the network; anyone who can reach it can fill the mailbox")
            }
        }
        let memoryRelease = Task.detached(priority: .background) {
            await IdleMemoryRelease.run(watching: server, database: database, passwords: passwords)
        }
        let signal = await stopRequest.next()
        memoryRelease.cancel()
        logger.notice("stopping (signal \(signal)); finishing requests in flight")
        await catcher?.shutdown()
        await server.shutdown(gracePeriod: .seconds(10))
        await app.stop()
    }
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
