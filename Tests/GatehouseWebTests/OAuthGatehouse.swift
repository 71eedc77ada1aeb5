import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import HTTPTestClient
import LocalAuth
import Logging
import OAuth
import Secrets
import Store
import TestScope
import Testing

@testable import Accounts

/// The real server with providers, the test provider, the hosted page and Apple switched on.
final class OAuthGatehouse: Stoppable, @unchecked Sendable {
    let directory: URL
    let clock = TestClock()
    let server: HTTPServer
    /// Its background work (the webhook worker) stops with the server.
    let app: Application
    let database: AppDatabase
    /// The keyed hash from its key file (what its sealed signing keys are sealed under).
    let hasher: KeyedHash
    /// The dev mailbox the accounts mail into (it opens the sealed mails).
    let mailbox: MailboxMailer
    var port: Int { server.port }
    var base: String { "http://127.0.0.1:\(port)" }

    init(
        verification: VerificationMode = .none, appleJWKSURL: String = "http://127.0.0.1:1/none",
        appleAudiences: Set<String> = ["com.example.app"], anonKey: String? = nil,
        googleJWKSURL: String = "http://127.0.0.1:1/none", googleAudiences: Set<String> = [],
        superTokensWebsiteURL: String? = nil, configure: (inout WebConfiguration) -> Void = { _ in }
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-oauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var logger = Logger(label: "gatehouse-oauth-test")
        logger.logLevel = .critical
        database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        let clock = clock
        let now: @Sendable () -> Date = { clock.now }
        let portBox = PortBox()
        let keys = try ServerKeys.loadOrCreate(path: directory.appendingPathComponent("gatehouse.key").path) { nil }
        let hasher = try KeyedHash(key: keys.keyedHash)
        self.hasher = hasher
        let passwords = try PasswordHasher(cost: .minimal)
        mailbox = try MailboxMailer(database: database, keyedHash: hasher, clock: now)
        let accounts = LocalAccounts(
            configuration: .init(verification: verification, publicBaseURL: { "http://127.0.0.1:\(portBox.port)" }),
            database: database, hasher: passwords, mailer: mailbox, keyedHash: hasher, clock: now, logger: logger)
        var configuration = WebConfiguration(
            publicBaseURL: "", templatesDirectory: TestGatehouse.repositoryRoot + "/Templates",
            publicDirectory: TestGatehouse.repositoryRoot + "/Public")
        configuration.anonKey = anonKey
        configuration.superTokensAPIKey = TestGatehouse.superTokensAPIKey
        configuration.superTokensWebsiteURL = superTokensWebsiteURL
        configure(&configuration)
        app = try await Application(
            configuration: configuration,
            backend: LocalBackend(accounts: accounts), database: AccountsDatabase(database), hasher: hasher,
            passwords: passwords, clock: now, logger: logger,
            oauth: OAuthSettings(
                baseURL: { "http://127.0.0.1:\(portBox.port)" }, secretBox: try SecretBox(key: keys.secretBox),
                appleJWKSURL: appleJWKSURL, appleAudiences: appleAudiences, googleJWKSURL: googleJWKSURL,
                googleAudiences: googleAudiences),
            templates: try await TestGatehouse.templates())
        server = app.server(configuration: .init(host: "127.0.0.1", port: 0, allowedHosts: HostAllowList()), logger: logger)
        try server.start()
        portBox.port = server.port
        try stopsWithTest()
    }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(5))
        await app.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func browser() -> Browser { Browser(port: port) }

    /// A superuser's bearer token, made on first use.
    private let tokenLock = NSLock()
    private var token: String?

    func superuserToken() async throws -> String {
        if let token = tokenLock.withLock({ token }) { return token }
        let made = try await adminToken(email: "oauth-admin-\(UUID().uuidString.prefix(8))@example.com")
        tokenLock.withLock { token = made }
        return made
    }

    /// `POST /_/api/…` as JSON with a superuser's token.
    @discardableResult
    func admin(_ path: String, _ json: [String: Any], expect status: Int = 201) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: json)
        let response = try await HTTPTestClient(port: port).request(
            "POST", path,
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(try await superuserToken())")],
            body: Array(body))
        guard response.status == status else { throw TestFailure("\(path) answered \(response.status): \(response.text)") }
        return response
    }

    /// `GET /_/api/…` with a superuser's token.
    func adminGet(_ path: String) async throws -> TestResponse {
        try await HTTPTestClient(port: port).request(
            "GET", path, headers: [("Authorization", "Bearer \(try await superuserToken())")])
    }

    /// Creates a password account (verification off) and signs the browser in.
    func signUp(_ browser: Browser, email: String, password: String = "correct horse battery") async throws {
        _ = try await browser.get("/auth/sign-up")
        let response = try await browser.post("/auth/sign-up", [("email", email), ("password", password)])
        guard response.status == 303 else { throw TestFailure("sign-up answered \(response.status)") }
    }

    func auditTypes() async throws -> [String] {
        try await database.auditEvents(subject: nil, limit: 500).map(\.type)
    }

    /// Walks the chooser of `provider` (in test mode) as `browser`, adding a person with `subject`
    /// and `email` (ticked "verified" when `verified`), and returns the callback's answer.
    func signInAtTestChooser(
        _ browser: Browser, provider: String, subject: String, email: String, verified: Bool = true, link: Bool = false
    ) async throws -> TestResponse {
        let callback = try await chooseAtTestChooser(
            browser, provider: provider, subject: subject, email: email, verified: verified, link: link)
        return try await browser.get(callback, follow: false)
    }

    /// `signInAtTestChooser` up to the provider's answer: the callback's path and query, not yet
    /// followed (a test can let time pass between the provider and the callback).
    func chooseAtTestChooser(
        _ browser: Browser, provider: String, subject: String, email: String, verified: Bool = true, link: Bool = false
    ) async throws -> String {
        let toProvider = try await browser.get("/auth/oauth/\(provider)" + (link ? "?link=1" : ""), follow: false)
        guard let chooserPath = toProvider.header("Location") else {
            throw TestFailure("start answered \(toProvider.status): \(toProvider.text.prefix(300))")
        }
        _ = try await browser.get(chooserPath)
        var fields: [(String, String)] = []
        for name in ["response_type", "client_id", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method"] {
            guard let value = queryItem(name, in: "http://x" + chooserPath) else {
                throw TestFailure("no \(name) in \(chooserPath)")
            }
            fields.append((name, value))
        }
        fields += [("action", "add"), ("email", email), ("name", "Mallory"), ("subject", subject)]
        if verified { fields.append(("email_verified", "on")) }
        let chosen = try await browser.post("/_/test-idp/\(provider)/authorize", fields)
        guard let callback = chosen.header("Location") else {
            throw TestFailure("chooser answered \(chosen.status): \(chosen.text.prefix(300))")
        }
        return pathAndQuery(callback)
    }
}

/// A tiny HTTP server on loopback for a test's peer (a JWKS URL, a sample app).
final class LoopbackPeer: Stoppable, @unchecked Sendable {
    let server: HTTPServer
    var port: Int { server.port }

    init(_ configure: (inout Router) -> Void) throws {
        var router = Router()
        configure(&router)
        var logger = Logger(label: "peer")
        logger.logLevel = .critical
        server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), logger: logger, responder: router.responder)
        try server.start()
        try stopsWithTest()
    }

    func stop() async { await server.shutdown(gracePeriod: .seconds(2)) }
}

extension TestResponse {
    /// The body as a JSON object.
    var json: [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:]
    }
}

extension OAuthGatehouse {
    /// The person at the test provider's chooser (`chooser`: the path and query of its authorization
    /// URL, a state added) making `choice` (`action` and the fields it needs): the address the
    /// provider sends them back to, with its code and state.
    func testProviderReturn(_ chooser: String, choosing choice: [(String, String)]) async throws -> String {
        let browser = browser()
        #expect(try await browser.get(chooser).status == 200)
        var fields: [(String, String)] = []
        for name in ["response_type", "client_id", "redirect_uri", "nonce", "code_challenge", "code_challenge_method", "state"] {
            fields.append((name, try #require(queryItem(name, in: "http://x" + chooser))))
        }
        let provider = try #require(chooser.split(separator: "/").dropFirst(2).first)
        let page = try await browser.post("/_/test-idp/\(provider)/authorize", fields + choice).text
        let start = try #require(page.range(of: "data-continue-url=\"")).upperBound
        return String(page[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// The path and query of an absolute URL on loopback.
func pathAndQuery(_ url: String) -> String {
    guard let components = URLComponents(string: url) else { return url }
    return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
}

func queryItem(_ name: String, in url: String) -> String? {
    URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
}
