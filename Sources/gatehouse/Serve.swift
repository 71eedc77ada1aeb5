import ArgumentParser
import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import LocalAuth
import Logging
import Secrets
import Store

/// `gatehouse serve`: opens the SQLite file, wires the embedded backend to the web front-end and
/// serves until SIGINT/SIGTERM, finishing requests in flight.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the account pages, dev mailbox and APIs.",
        discussion: "Every option can also be set with a GATEHOUSE_* environment variable (named in its help); a flag wins over the variable.")

    @Option(help: "Address to listen on. Loopback by default; anything else closes the dev mailbox. (GATEHOUSE_HOST)")
    var host: String = Environment.value("HOST") ?? "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one. (GATEHOUSE_PORT)")
    var port: Int = Environment.value("PORT").flatMap(Int.init) ?? 8080

    @Option(help: "SQLite file holding users, sessions, mail and audit; created if missing. (GATEHOUSE_DB)")
    var db: String = Environment.value("DB") ?? "gatehouse.sqlite"

    @Option(help: "Where users live. Only the embedded SQLite store (local) is available in this build. (GATEHOUSE_BACKEND)")
    var backend: BackendKind = Environment.value("BACKEND").flatMap(BackendKind.init(rawValue:)) ?? .local

    @Option(help: "How new accounts verify their email: none, code (6 digits) or link. (GATEHOUSE_VERIFICATION)")
    var verification: VerificationMode = Environment.value("VERIFICATION").flatMap(VerificationMode.init(rawValue:)) ?? .code

    @Option(help: "URL people reach Gatehouse at, used in mailed links. Defaults to http://HOST:PORT. (GATEHOUSE_PUBLIC_URL)")
    var publicURL: String?

    @Option(help: "Folder with the page templates. (GATEHOUSE_TEMPLATES)")
    var templates: String = Environment.value("TEMPLATES") ?? "Templates"

    @Option(help: "Folder with static assets. (GATEHOUSE_PUBLIC)")
    var assets: String = Environment.value("PUBLIC") ?? "Public"

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical. (GATEHOUSE_LOG_LEVEL)")
    var logLevel: Logger.Level = Environment.value("LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info

    @Option(help: "Largest request body accepted, in bytes; larger ones get 413. (GATEHOUSE_MAX_BODY)")
    var maxBody: Int = Environment.value("MAX_BODY").flatMap(Int.init) ?? 1 << 20

    @Option(help: "Worker threads for HTTP; defaults to the number of cores. (GATEHOUSE_THREADS)")
    var threads: Int = Environment.value("THREADS").flatMap(Int.init) ?? ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Turn off sign-in, code and mail throttling. For load tests only; never on a shared machine.")
    var noRateLimits = false

    @OptionGroup var oauth: OAuthOptions

    /// `--public-url`, else `GATEHOUSE_PUBLIC_URL`.
    private var resolvedPublicURL: String? { publicURL ?? Environment.value("PUBLIC_URL") }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard maxBody >= 1024 else { throw ValidationError("--max-body must be at least 1024 bytes.") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1.") }
        if let publicURL = resolvedPublicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            throw ValidationError("--public-url must start with http:// or https://.")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "gatehouse")
        let publicURL = resolvedPublicURL
        let database = try AppDatabase(path: db)
        let clock: @Sendable () -> Date = { Date() }
        let hasher = try KeyedHash(key: try database.secretKey(named: "keyed-hash"))
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(host)
        let displayHost = host.contains(":") ? "[\(host)]" : host

        // The public URL is known only once the port is bound (port 0 picks one), so the backend reads it late.
        let baseURL = LateBox<String>()
        let localBackend = LocalBackend(
            configuration: .init(verification: verification, publicBaseURL: { baseURL.value ?? "" }),
            database: database, hasher: try PasswordHasher(), mailer: MailboxMailer(database: database, clock: clock),
            keyedHash: hasher, clock: clock, logger: logger)
        let app = try await Application(
            configuration: WebConfiguration(publicBaseURL: publicURL ?? "", templatesDirectory: templates,
                                            publicDirectory: assets, mailboxIsOpen: loopback,
                                            assetVersion: String(Int(Date().timeIntervalSince1970), radix: 36), rateLimits: !noRateLimits),
            backend: localBackend, database: database, hasher: hasher, clock: clock, logger: logger,
            oauth: try await oauth.settings(db: db, database: database, loopback: loopback, baseURL: { baseURL.value ?? "" }))
        let server = HTTPServer(
            configuration: .init(host: host, port: port, threadCount: threads, maxBodyBytes: maxBody),
            logger: logger, responder: app.responder)
        try server.start()
        let url = publicURL ?? "http://\(displayHost):\(server.port)"
        baseURL.value = url
        logger.notice("Gatehouse listening on \(url)", metadata: [
            "db": "\(db)", "backend": "\(backend.rawValue)", "verification": "\(verification.rawValue)",
        ])
        let signal = await waitForTerminationSignal()
        logger.notice("stopping (signal \(signal)); finishing requests in flight")
        await server.shutdown(gracePeriod: .seconds(10))
    }
}

/// Backends `--backend` accepts.
enum BackendKind: String, ExpressibleByArgument, CaseIterable {
    case local
}

extension VerificationMode: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Reads `GATEHOUSE_*` environment variables.
enum Environment {
    static func value(_ name: String) -> String? {
        ProcessInfo.processInfo.environment["GATEHOUSE_" + name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
