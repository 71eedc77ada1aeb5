import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import LocalAuth
import Logging
import Secrets
import Store
import TestScope
import Testing

@testable import Accounts

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client core's PocketBase, InsForge, Descope or SuperTokens backend pointed at Gatehouse's own compatible API: a
/// real Gatehouse server (embedded store) on a loopback port with a superuser, so the conformance
/// suite holds Gatehouse's APIs to the assertions the embedded store and the real PocketBase pass.
final class GatehouseAPIFixture: MailboxFixture {
    /// Which of Gatehouse's compatible APIs the client core talks to.
    enum Face {
        /// `PocketBaseBackend` → `/api/collections` (link verification, as PocketBase's).
        case pocketBase
        /// `InsForgeBackend` → `/api/auth` (6-digit codes, as InsForge's).
        case insForge
        /// `DescopeBackend` → `/v1/auth` (the server's generated project id).
        case descope
        /// `SuperTokensBackend` → the FDI at `/auth` (header mode, with the Rownd plugin's routes).
        case superTokens
    }

    static let superuser = ("root@gatehouse.test", "superuser-password-1")

    let directory: URL
    let database: AppDatabase
    let mailbox: MailboxMailer
    let server: HTTPServer
    let api: any AuthAPI

    static func start(_ face: Face) async throws -> GatehouseAPIFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-pbapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var logger = Logger(label: "test.client-core.gatehouse-pocketbase-api")
        logger.logLevel = .warning
        let database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        let hasher = try KeyedHash(key: try database.secretKey(named: "keyed-hash"))
        let passwords = try sharedHasher.get()
        let mailbox = try MailboxMailer(database: database, keyedHash: hasher, clock: Date.init)
        let accounts = LocalAccounts(
            configuration: .init(verification: face == .pocketBase ? .link : .code, publicBaseURL: "http://127.0.0.1"),
            database: database, hasher: passwords, mailer: mailbox, keyedHash: hasher, logger: logger)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let app = try await Application(
            configuration: WebConfiguration(
                publicBaseURL: "", templatesDirectory: root + "/Templates", publicDirectory: root + "/Public",
                rateLimits: false),
            backend: LocalBackend(accounts: accounts), database: AccountsDatabase(database), hasher: hasher, passwords: passwords,
            logger: logger)
        let server = app.server(configuration: .init(host: "127.0.0.1", port: 0, allowedHosts: HostAllowList()), logger: logger)
        try server.start()
        try atTestEnd {
            await server.shutdown(gracePeriod: .seconds(5))
            await app.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        _ = try await database.createSuperuser(
            id: SecureRandom.userID(), email: superuser.0, passwordHash: try await passwords.hash(superuser.1), at: Date())
        let baseURL = URL(string: "http://127.0.0.1:\(server.port)")!
        let api: any AuthAPI
        switch face {
        case .pocketBase:
            api = PocketBaseBackend(configuration: .init(baseURL: baseURL, superuser: superuser), logger: logger)
        case .insForge:
            let adminKey = try await ConsoleTokens.token(for: superuser, at: baseURL)
            api = InsForgeBackend(configuration: .init(baseURL: baseURL, adminKey: adminKey), logger: logger)
        case .descope:
            let project = try #require(app.descopeProjectIDs.first)
            api = DescopeBackend(configuration: .init(baseURL: baseURL, projectID: project), logger: logger)
        case .superTokens:
            api = SuperTokensBackend(configuration: .init(apiDomain: baseURL), logger: logger)
        }
        return GatehouseAPIFixture(directory: directory, database: database, mailbox: mailbox, server: server, api: api)
    }

    private init(directory: URL, database: AppDatabase, mailbox: MailboxMailer, server: HTTPServer, api: any AuthAPI) {
        self.directory = directory
        self.database = database
        self.mailbox = mailbox
        self.server = server
        self.api = api
    }

    /// The newest code, or the token of the newest link, in Gatehouse's dev mailbox.
    func mailedVerification(to email: String) async throws -> Mailed {
        let mail = try await mailbox.mails(to: email, limit: 1).first
        if let code = mail?.code { return .code(code) }
        guard let link = mail?.link,
            let token = URLComponents(string: link)?.queryItems?.first(where: { $0.name == "token" })?.value
        else { throw AuthError.server(status: 0, code: "no_mail", message: "no verification mail to \(email)") }
        return .linkToken(token)
    }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(5))
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A superuser's admin-API token (`POST /_/api/auth`): what Gatehouse's InsForge API takes where
/// InsForge takes its admin key.
enum ConsoleTokens {
    static func token(for superuser: (String, String), at baseURL: URL) async throws -> String {
        var request = URLRequest(url: baseURL.appendingPathComponent("_/api/auth"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["email": superuser.0, "password": superuser.1])
        let (data, _) = try await URLSession(configuration: .ephemeral).data(for: request)
        guard let token = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["token"] as? String else {
            throw AuthError.server(status: 0, code: "no_token", message: "POST /_/api/auth gave no token")
        }
        return token
    }
}
