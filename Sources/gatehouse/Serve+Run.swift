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

/// What `serve` checks before it starts, and the start itself: the options read (flags, then
/// `GATEHOUSE_*` variables), the database, backend, mail and server built from them.
extension Serve {
    /// `--smtp`, else `GATEHOUSE_SMTP`; nil when the mail catcher is off.
    var smtpAddress: SMTPListenAddress? {
        (smtp ?? Environment.value("SMTP")).flatMap(SMTPListenAddress.init)
    }

    /// How the console names where users live.
    var backendDescription: String {
        switch backend {
        case .local: return "Embedded SQLite · \(db)"
        case .pocketbase: return "PocketBase at \(resolvedBackendURL ?? "?")"
        case .insforge: return "InsForge at \(resolvedBackendURL ?? "?")"
        }
    }

    /// The host names answered: `--allowed-host` (else `GATEHOUSE_ALLOWED_HOSTS`) and the public URL's host.
    var allowedHosts: HostAllowList {
        let extra =
            allowedHost.isEmpty
            ? (Environment.value("ALLOWED_HOSTS")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? [])
            : allowedHost
        return HostAllowList(names: extra + [resolvedPublicURL.flatMap { URL(string: $0)?.host }].compactMap { $0 })
    }

    /// A repeatable option's values (each may be a comma-separated list), else the environment
    /// variable `GATEHOUSE_<variable>`'s comma-separated list.
    static func list(_ values: [String], else variable: String) -> [String] {
        (values.isEmpty ? [Environment.value(variable) ?? ""] : values)
            .flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
    }

    /// `--public-url`, else `GATEHOUSE_PUBLIC_URL`.
    var resolvedPublicURL: String? { publicURL ?? Environment.value("PUBLIC_URL") }
    var resolvedBackendURL: String? { backendURL ?? Environment.value("BACKEND_URL") }
    /// `--backend-admin`, else `GATEHOUSE_BACKEND_ADMIN`, else the first line of `--backend-admin-file`.
    var resolvedBackendAdmin: String? {
        if let value = backendAdmin ?? Environment.value("BACKEND_ADMIN") { return value }
        guard let path = backendAdminFile ?? Environment.value("BACKEND_ADMIN_FILE"),
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        return text.split(whereSeparator: \.isNewline).first.map(String.init)
    }

    /// `EMAIL:PASSWORD` split at the first colon (passwords may contain colons).
    var superuser: (email: String, password: String)? {
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
    var resolvedTestAddressSuffix: String? { testAddressSuffix ?? Environment.value("TEST_ADDRESS_SUFFIX") }

    /// The host names that bind to loopback only.
    static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "localhost"]

    /// `--password-min-score` as the one password rule.
    var passwordRules: PasswordRules { PasswordRules(minimumScore: passwordMinScore) }

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
