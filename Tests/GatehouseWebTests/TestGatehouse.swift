import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import HTTPTestClient
import LocalAuth
import Logging
import Secrets
import Store
import TestScope

@testable import Accounts

/// A clock tests move forward by hand (code expiry, cool-downs).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    private var frozenAt: Date?

    var now: Date { lock.withLock { (frozenAt ?? Date()).addingTimeInterval(offset) } }

    func advance(_ seconds: TimeInterval) {
        lock.withLock { offset += seconds }
    }

    /// Stops the clock where it is (`advance` still moves it), for a test about what happens at one
    /// instant however long the machine takes, e.g. tries inside a back-off of a few seconds.
    func freeze() {
        lock.withLock { frozenAt = frozenAt ?? Date() }
    }
}

/// The real Gatehouse server on 127.0.0.1 with an ephemeral port and a temp SQLite file.
final class TestGatehouse: Stoppable, @unchecked Sendable {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The templates in `directory`: the repository's are parsed once for the whole test process,
    /// as every harness's servers render the same files and parsing them (a debug build of the
    /// Mustache parser) was a fifth of the suites' CPU; any other folder is parsed for its server.
    static func templates(in directory: String = repositoryRoot + "/Templates") async throws -> TemplateRenderer {
        guard directory == repositoryRoot + "/Templates" else { return try await TemplateRenderer(directory: directory) }
        return try await repositoryTemplates.value
    }

    private static let repositoryTemplates = Task { try await TemplateRenderer(directory: repositoryRoot + "/Templates") }

    let directory: URL
    let clock: TestClock
    let verification: VerificationMode
    /// `--sign-in-methods` and `--passwordless-sign-up`.
    let signInMethods: Set<SignInMethod>
    let passwordlessSignUp: Bool
    /// `.minimal` unless a test is about what hashing costs (see `PasswordHasher.Cost`).
    let hashCost: PasswordHasher.Cost
    /// `--impersonation-reason`.
    let impersonationReason: ImpersonationReason.Rule
    private(set) var server: HTTPServer
    /// What the server serves, until it stops (its webhook worker stops with it). Let go then: an
    /// application kept by each stopped fixture held ~1.3 MiB a server (ServerMemoryTests).
    private var app: Application?
    private(set) var database: AppDatabase
    /// The server's password hasher, for the argon2 work a try cost (`PasswordHasher.argon2Work`).
    private(set) var passwords: PasswordHasher
    var port: Int { server.port }
    var databasePath: String { directory.appendingPathComponent("gatehouse.sqlite").path }

    /// Starts a server; pass `directory` to reopen an earlier server's SQLite file.
    init(
        verification: VerificationMode = .code, directory: URL? = nil, maxBodyBytes: Int = 1 << 20,
        templates: String = TestGatehouse.repositoryRoot + "/Templates", anonKey: String? = nil,
        signInMethods: Set<SignInMethod> = Set(SignInMethod.allCases), passwordlessSignUp: Bool = false,
        hashCost: PasswordHasher.Cost = .minimal, impersonationReason: ImpersonationReason.Rule = .optional
    ) async throws {
        self.directory =
            directory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("gatehouse-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        self.verification = verification
        self.signInMethods = signInMethods
        self.passwordlessSignUp = passwordlessSignUp
        self.hashCost = hashCost
        self.impersonationReason = impersonationReason
        let clock = TestClock()
        self.clock = clock
        (server, app, database, passwords) = try await Self.makeServer(
            databasePath: self.directory.appendingPathComponent("gatehouse.sqlite").path,
            verification: verification, maxBodyBytes: maxBodyBytes, templates: templates, clock: clock,
            anonKey: anonKey, signInMethods: signInMethods, passwordlessSignUp: passwordlessSignUp, hashCost: hashCost,
            impersonationReason: impersonationReason)
        try stopsWithTest()
    }

    static func makeServer(
        databasePath: String, verification: VerificationMode, maxBodyBytes: Int,
        templates: String, clock: TestClock, anonKey: String? = nil,
        signInMethods: Set<SignInMethod> = Set(SignInMethod.allCases), passwordlessSignUp: Bool = false,
        hashCost: PasswordHasher.Cost, impersonationReason: ImpersonationReason.Rule = .optional
    ) async throws -> (HTTPServer, Application, AppDatabase, PasswordHasher) {
        var logger = Logger(label: "gatehouse-test")
        logger.logLevel = .warning
        let database = try AppDatabase(path: databasePath)
        let now: @Sendable () -> Date = { clock.now }
        let hasher = try KeyedHash(key: try database.secretKey(named: "keyed-hash"))
        let passwords = try PasswordHasher(cost: hashCost)
        let portBox = PortBox()
        let accounts = LocalAccounts(
            configuration: .init(verification: verification, publicBaseURL: { "http://127.0.0.1:\(portBox.port)" }),
            database: database, hasher: passwords, mailer: try MailboxMailer(database: database, keyedHash: hasher, clock: now),
            keyedHash: hasher, clock: now, logger: logger)
        var configuration = WebConfiguration(
            publicBaseURL: "", templatesDirectory: templates, publicDirectory: repositoryRoot + "/Public",
            signInMethods: signInMethods, passwordlessSignUp: passwordlessSignUp)
        configuration.anonKey = anonKey
        configuration.superTokensAPIKey = superTokensAPIKey
        configuration.webhookPolicy = .tests
        configuration.impersonationReasonRule = impersonationReason
        configuration.superTokensAppOrigins = [superTokensAppOrigin]
        configuration.superTokensWebsiteURL = superTokensAppOrigin + "/auth"
        let app = try await Application(
            configuration: configuration,
            backend: LocalBackend(accounts: accounts), database: AccountsDatabase(database), hasher: hasher,
            passwords: passwords, clock: now, logger: logger, templates: try await Self.templates(in: templates))
        let server = app.server(
            configuration: .init(host: "127.0.0.1", port: 0, maxBodyBytes: maxBodyBytes, allowedHosts: HostAllowList()),
            logger: logger)
        try server.start()
        portBox.port = server.port
        return (server, app, database, passwords)
    }

    /// The SuperTokens core's API key, given as `--supertokens-api-key` would give it.
    static let superTokensAPIKey = "test-supertokens-api-key-0123456789"
    /// A web app's origin, given as `--supertokens-app-origin` would give it.
    static let superTokensAppOrigin = "http://app.example.test"

    /// Stops this server and starts a fresh one on the same SQLite file (a restart); `meanwhile`
    /// runs while none is serving.
    func restart(meanwhile: () async throws -> Void = {}) async throws {
        await server.shutdown(gracePeriod: .seconds(5))
        await app?.stop()
        app = nil
        try await meanwhile()
        (server, app, database, passwords) = try await Self.makeServer(
            databasePath: databasePath, verification: verification, maxBodyBytes: 1 << 20,
            templates: Self.repositoryRoot + "/Templates", clock: clock, signInMethods: signInMethods,
            passwordlessSignUp: passwordlessSignUp, hashCost: hashCost, impersonationReason: impersonationReason)
    }

    /// Stops the server, gives back the database's page caches and the hasher's kept memory and
    /// removes the files; the object itself stays on its test's list until the test ends.
    func stop() async {
        await server.shutdown(gracePeriod: .seconds(5))
        await app?.stop()
        app = nil
        await database.releaseMemory()
        // The hasher outlives the server here (`passwords`), so its kept argon2 memory goes back now.
        passwords.releaseMemory()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A browser; `source` makes it connect from another loopback address (another client IP).
    func browser(from source: String? = nil) -> Browser { Browser(port: port, source: source) }

    /// A JSON POST from `source` (another loopback client when set), carrying the app's anon key as
    /// InsForge's SDK sends it on signed-out calls unless `anonKey` is false.
    func postJSON(
        _ path: String, _ body: [String: Any], anonKey: Bool = true, from source: String? = nil
    ) async throws -> TestResponse {
        var headers = [("Content-Type", "application/json")]
        if anonKey { headers.append(("Authorization", "Bearer anon_app_key")) }
        return try await HTTPTestClient(port: port, source: source).request(
            "POST", path, headers: headers, body: Array(try JSONSerialization.data(withJSONObject: body)))
    }

    /// The code in the newest mail to `email`.
    func latestCode(for email: String) async throws -> String {
        guard let code = try await mails(to: email).first?["code"] as? String else {
            throw TestFailure("no code mailed to \(email)")
        }
        return code
    }
}

final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    var port: Int {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
