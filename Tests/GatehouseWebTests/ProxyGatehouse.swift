import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import HTTPTestClient
import Logging
import PocketBaseTestSupport
import Secrets
import Store
import TestScope

@testable import Accounts

/// The real server wired as `gatehouse serve --backend pocketbase` wires it: pages, console and APIs
/// all through `PocketBaseBackend` (browser sessions hold PocketBase's own tokens).
final class ProxyGatehouse: Stoppable, @unchecked Sendable {
    let directory: URL
    let server: HTTPServer
    /// Its background work (the webhook worker) stops with the server.
    let app: Application
    let database: AppDatabase
    let remote: PocketBaseBackend
    var port: Int { server.port }

    init(pocketBase: PocketBaseServer, superuser: (String, String)?) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var logger = Logger(label: "gatehouse-proxy-test")
        logger.logLevel = .warning
        database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        let keys = try ServerKeys.loadOrCreate(path: directory.appendingPathComponent("gatehouse.key").path) { nil }
        let hasher = try KeyedHash(key: keys.keyedHash)
        let portBox = PortBox()
        remote = PocketBaseBackend(configuration: .init(baseURL: pocketBase.baseURL, superuser: superuser), logger: logger)
        app = try await Application(
            configuration: WebConfiguration(
                publicBaseURL: "", templatesDirectory: TestGatehouse.repositoryRoot + "/Templates",
                publicDirectory: TestGatehouse.repositoryRoot + "/Public"),
            backend: remote, database: AccountsDatabase(database), hasher: hasher,
            passwords: try PasswordHasher(cost: .minimal, pool: BlockingWorkPool(threadCount: 1)), logger: logger,
            oauth: OAuthSettings(baseURL: { "http://127.0.0.1:\(portBox.port)" }, secretBox: try SecretBox(key: keys.secretBox)),
            templates: try await TestGatehouse.templates())
        server = app.server(configuration: .init(host: "127.0.0.1", port: 0, allowedHosts: HostAllowList()), logger: logger)
        try server.start()
        portBox.port = server.port
        try stopsWithTest()
        if superuser != nil {
            try await remote.prepareCollection(verificationLinkBase: "http://127.0.0.1:\(server.port)")
        }
    }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(5))
        await app.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `body` with a fresh PocketBase and Gatehouse in front of it; both stop with the test.
    static func run(superuser: (String, String)?, _ body: (PocketBaseServer, ProxyGatehouse) async throws -> Void) async throws {
        let pocketBase = try await PocketBaseServer.start()
        try await body(pocketBase, try await ProxyGatehouse(pocketBase: pocketBase, superuser: superuser))
    }
}
