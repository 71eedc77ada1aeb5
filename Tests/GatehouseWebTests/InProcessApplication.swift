import Foundation
import GatehouseWeb
import LocalAuth
import Logging
import Secrets
import Store

@testable import Accounts

/// The application over a fresh SQLite file in a temporary folder, without a socket: requests are
/// handed to its responder directly, so they can come from any peer address.
struct InProcessApplication {
    let app: Application
    let database: AppDatabase
    let hasher: KeyedHash
    let logger: Logger
    private let passwords: PasswordHasher
    private let directory: URL

    /// `configure` sets the web configuration's flags before the application starts.
    init(_ configure: (inout WebConfiguration) -> Void = { _ in }) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        var logger = Logger(label: "gatehouse-test")
        logger.logLevel = .critical
        self.logger = logger
        hasher = try KeyedHash(key: try database.secretKey(named: "keyed-hash"))
        passwords = try PasswordHasher(cost: .minimal)
        let accounts = LocalAccounts(
            configuration: .init(verification: .none, publicBaseURL: { "http://127.0.0.1" }), database: database,
            hasher: passwords, mailer: try MailboxMailer(database: database, keyedHash: hasher, clock: Date.init),
            keyedHash: hasher, logger: logger)
        var configuration = WebConfiguration(
            publicBaseURL: "", templatesDirectory: TestGatehouse.repositoryRoot + "/Templates",
            publicDirectory: TestGatehouse.repositoryRoot + "/Public")
        configure(&configuration)
        app = try await Application(
            configuration: configuration, backend: LocalBackend(accounts: accounts), database: AccountsDatabase(database),
            hasher: hasher,
            passwords: passwords, logger: logger, templates: try await TestGatehouse.templates())
    }

    /// Gives back the hasher's and the database's memory and removes the folder.
    func stop() async {
        await app.stop()
        passwords.releaseMemory()
        await database.releaseMemory()
        try? FileManager.default.removeItem(at: directory)
    }
}
