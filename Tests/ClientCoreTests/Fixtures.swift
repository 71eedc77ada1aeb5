import AuthCore
import Foundation
import LocalAuth
import Logging
import PocketBaseTestSupport
import Secrets
import Store
import Synchronization
import TestScope
import Testing

/// The backends the conformance suite runs against; every test takes each in turn.
enum BackendKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case local
    case pocketbase
    /// `PocketBaseBackend` against Gatehouse's own PocketBase-compatible API.
    case gatehousePocketBaseAPI
    /// `InsForgeBackend` against Gatehouse's own InsForge-compatible API (no InsForge server runs
    /// here). InsForge's API has no administration beyond listing and deleting users, so the suites
    /// that need more take `BackendKind.administrable`.
    case gatehouseInsForgeAPI
    /// `DescopeBackend` against Gatehouse's own Descope-compatible API. Descope's auth API signs a
    /// new account in at once and administers nothing (that takes its management key), so it runs
    /// the shared suites that fit and `DescopeConformanceTests` for the rest.
    case gatehouseDescopeAPI
    /// `SuperTokensBackend` against Gatehouse's own SuperTokens frontend API (the FDI): like
    /// Descope's, a sign-up signs in at once and nothing is administered (that takes the core's API
    /// key), so it runs the shared suites that fit and `SuperTokensConformanceTests` for the rest.
    case gatehouseSuperTokensFDI

    /// The backends with full administration (create, update, impersonate, link, import).
    static let administrable: [BackendKind] = [.local, .pocketbase, .gatehousePocketBaseAPI]
    /// The backends whose sign-up waits for a verified address before it signs in.
    static let verifyingBeforeSignIn: [BackendKind] = allCases.filter {
        $0 != .gatehouseDescopeAPI && $0 != .gatehouseSuperTokensFDI
    }

    var testDescription: String { rawValue }

    func start() async throws -> Fixture {
        switch self {
        case .local: return try await LocalFixture()
        case .pocketbase: return try await PocketBaseFixture.start()
        case .gatehousePocketBaseAPI: return try await GatehouseAPIFixture.start(.pocketBase)
        case .gatehouseInsForgeAPI: return try await GatehouseAPIFixture.start(.insForge)
        case .gatehouseDescopeAPI: return try await GatehouseAPIFixture.start(.descope)
        case .gatehouseSuperTokensFDI: return try await GatehouseAPIFixture.start(.superTokens)
        }
    }
}

/// What a verification mail carried.
enum Mailed: Equatable {
    case code(String)
    case linkToken(String)

    var secret: String {
        switch self {
        case .code(let code): return code
        case .linkToken(let token): return token
        }
    }
}

/// One backend ready for the suite, with a way to read what it mailed; it stops with the test.
protocol Fixture: Stoppable {
    var api: any AuthAPI { get }
    /// The newest verification secret mailed to `email`, as that backend mails it.
    func mailedVerification(to email: String) async throws -> Mailed
}

extension Fixture {
    func client(storage: any SessionStorage = InMemorySessionStorage()) -> AuthClient {
        AuthClient(api: api, storage: storage)
    }
}

/// A fixture whose backend mails into Gatehouse's own dev mailbox (the embedded store, in process
/// or behind Gatehouse's compatible APIs).
protocol MailboxFixture: Fixture {
    /// The dev mailbox the backend mails into (it opens the sealed mails).
    var mailbox: MailboxMailer { get }
}

extension MailboxFixture {
    /// The `token` of the newest link mailed to `email`.
    func mailedLinkToken(to email: String) async throws -> String {
        guard let link = try await mailbox.mails(to: email, limit: 1).first?.link,
            let token = URLComponents(string: link)?.queryItems?.first(where: { $0.name == "token" })?.value
        else { throw AuthError.server(status: 0, code: "no_mail", message: "no link mailed to \(email)") }
        return token
    }
}

/// One hasher for every local fixture (bounded threads however many tests run).
let sharedHasher = Result {
    try PasswordHasher(cost: .minimal, pool: BlockingWorkPool(threadCount: 4, name: "client-core-pwhash"))
}

/// The embedded backend over a temp SQLite file, verifying by 6-digit code.
final class LocalFixture: MailboxFixture {
    let directory: URL
    let database: AppDatabase
    let mailbox: MailboxMailer
    let backend: LocalAccounts
    let localAPI: LocalBackend
    var api: any AuthAPI { localAPI }

    init(clock: @escaping @Sendable () -> Date = Date.init, accessTokenLifetime: TimeInterval = 3600) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-cc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        var logger = Logger(label: "test.client-core.local")
        logger.logLevel = .warning
        let keyedHash = try KeyedHash(key: database.secretKey(named: "keyed-hash"))
        mailbox = try MailboxMailer(database: database, keyedHash: keyedHash, clock: clock)
        backend = LocalAccounts(
            configuration: .init(verification: .code), database: database, hasher: try sharedHasher.get(), mailer: mailbox,
            keyedHash: keyedHash, clock: clock, logger: logger)
        localAPI = LocalBackend(accounts: backend, accessTokenLifetime: accessTokenLifetime)
        try stopsWithTest()
    }

    func mailedVerification(to email: String) async throws -> Mailed {
        let mail = try #require(try await mailbox.mails(to: email, limit: 1).first)
        return .code(try #require(mail.code))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func stop() async { try? FileManager.default.removeItem(at: directory) }
}

/// A real PocketBase with its own SMTP sink; the verification link is read from the mail.
final class PocketBaseFixture: Fixture {
    let server: PocketBaseServer
    let backend: PocketBaseBackend
    var api: any AuthAPI { backend }

    static func start() async throws -> PocketBaseFixture {
        let server = try await PocketBaseServer.start()
        var logger = Logger(label: "test.client-core.pocketbase")
        logger.logLevel = .warning
        let backend = PocketBaseBackend(
            configuration: .init(
                baseURL: server.baseURL,
                superuser: (PocketBaseServer.superuserEmail, PocketBaseServer.superuserPassword)), logger: logger)
        try await backend.prepareCollection(verificationLinkBase: "http://gatehouse.test")
        return PocketBaseFixture(server: server, backend: backend)
    }

    private init(server: PocketBaseServer, backend: PocketBaseBackend) {
        self.server = server
        self.backend = backend
    }

    func mailedVerification(to email: String) async throws -> Mailed {
        .linkToken(try await server.verificationToken(for: email))
    }

    func stop() async { await server.stop() }
}

/// Runs `body` with a fresh fixture; it stops with the test (`.stopsWhatItStarts`).
func withFixture(_ kind: BackendKind, _ body: (Fixture) async throws -> Void) async throws {
    try await body(try await kind.start())
}

/// The `AuthError` thrown by `body`, or nil.
func authError(_ body: () async throws -> Void) async -> AuthError? {
    do {
        try await body()
        return nil
    } catch let error as AuthError {
        return error
    } catch {
        Issue.record("expected an AuthError, got \(error)")
        return nil
    }
}

/// Records every event an `AuthClient` reports.
final class EventLog: Sendable {
    private let events = Mutex<[AuthEvent]>([])
    var all: [AuthEvent] { events.withLock { $0 } }
    func append(_ event: AuthEvent) { events.withLock { $0.append(event) } }
}

func uniqueEmail(_ prefix: String) -> String {
    "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

extension SignInResult {
    /// The session of a sign-in the test expects to complete; anything else fails the test.
    @discardableResult
    func requireSession(sourceLocation: SourceLocation = #_sourceLocation) throws -> AuthSession {
        try #require(session, "the sign-in answered \(self)", sourceLocation: sourceLocation)
    }
}
