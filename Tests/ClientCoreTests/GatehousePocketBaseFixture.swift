import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import LocalAuth
import Logging
import Secrets
import Store

/// The client core's PocketBase backend pointed at Gatehouse's own PocketBase-compatible API: a
/// real Gatehouse server (embedded store, link verification) on a loopback port with a superuser,
/// so the conformance suite holds Gatehouse's API to the assertions the real PocketBase passes.
final class GatehousePocketBaseFixture: Fixture {
    static let superuser = ("root@gatehouse.test", "superuser-password-1")

    let directory: URL
    let database: AppDatabase
    let server: HTTPServer
    let backend: PocketBaseBackend
    var api: any AuthAPI { backend }

    static func start() async throws -> GatehousePocketBaseFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-pbapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var logger = Logger(label: "test.client-core.gatehouse-pocketbase-api")
        logger.logLevel = .warning
        let database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        let hasher = try KeyedHash(key: try database.secretKey(named: "keyed-hash"))
        let passwords = try sharedHasher.get()
        let accounts = LocalAccounts(
            configuration: .init(verification: .link, publicBaseURL: "http://127.0.0.1"), database: database,
            hasher: passwords, mailer: MailboxMailer(database: database, clock: Date.init), keyedHash: hasher,
            logger: logger)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let app = try await Application(
            configuration: WebConfiguration(
                publicBaseURL: "", templatesDirectory: root + "/Templates", publicDirectory: root + "/Public",
                rateLimits: false),
            backend: LocalBackend(accounts: accounts), database: database, hasher: hasher, passwords: passwords,
            logger: logger)
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, allowedHosts: HostAllowList()), logger: logger,
            responder: app.responder)
        try server.start()
        _ = try await database.createSuperuser(
            id: SecureRandom.userID(), email: superuser.0, passwordHash: try await passwords.hash(superuser.1), at: Date())
        let backend = PocketBaseBackend(
            configuration: .init(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, superuser: superuser),
            logger: logger)
        return GatehousePocketBaseFixture(directory: directory, database: database, server: server, backend: backend)
    }

    private init(directory: URL, database: AppDatabase, server: HTTPServer, backend: PocketBaseBackend) {
        self.directory = directory
        self.database = database
        self.server = server
        self.backend = backend
    }

    /// The token of the newest verification link in Gatehouse's dev mailbox.
    func mailedVerification(to email: String) async throws -> Mailed {
        guard let link = try await database.mails(to: email, limit: 1).first?.link,
            let token = URLComponents(string: link)?.queryItems?.first(where: { $0.name == "token" })?.value
        else { throw AuthError.server(status: 0, code: "no_mail", message: "no verification link mailed to \(email)") }
        return .linkToken(token)
    }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(5))
        try? FileManager.default.removeItem(at: directory)
    }
}
