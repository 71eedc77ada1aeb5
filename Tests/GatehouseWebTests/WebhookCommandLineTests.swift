import Accounts
import Foundation
import LocalAuth
import Logging
import Secrets
import Store
import Testing

/// Events the command line writes while the server runs (`gatehouse users seed`, straight on the
/// SQLite file, in another process) reach the app without waiting for the server's next act: the
/// delivery worker notices outbox rows another connection wrote.
@Suite(.stopsWhatItStarts) struct WebhookCommandLineTests {
    /// The command line's test-data operations over `path`, as `gatehouse users …` opens them: its
    /// own connection to the file, no delivery worker.
    static func commandLine(on path: String) throws -> CommandLineTestData {
        var logger = Logger(label: "gatehouse-test.cli")
        logger.logLevel = .warning
        let database = try AppDatabase(path: path)
        let keyedHash = try KeyedHash(key: try database.secretKey(named: "keyed-hash"))
        let clock: @Sendable () -> Date = { Date() }
        let accounts = LocalAccounts(
            configuration: .init(verification: .none, publicBaseURL: { "" }), database: database,
            hasher: try PasswordHasher(cost: .minimal),
            mailer: try MailboxMailer(database: database, keyedHash: keyedHash, clock: clock), keyedHash: keyedHash,
            clock: clock, logger: logger)
        return CommandLineTestData(backend: LocalBackend(accounts: accounts), database: database, logger: logger, clock: clock)
    }

    @Test func usersSeededFromTheCommandLineArriveWithoutAnActOfTheServer() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let receiver = try WebhookReceiver()
        let token = try await gatehouse.adminToken()
        _ = try await WebhookDeliveryTests.addEndpoint(gatehouse, token: token, ["url": receiver.url])

        let seeded = try await Self.commandLine(on: gatehouse.databasePath).seed(
            count: 2, pattern: "cli+{n}@example.com", password: "correct horse battery", verified: true, tag: nil,
            progress: { _ in })
        #expect(seeded.created == 2)
        let received = try await receiver.waitFor(2, seconds: 5)
        #expect(received.map(\.type) == ["user.created", "user.created"])
        #expect(
            Set(received.compactMap { ($0.data["user"] as? [String: Any])?["email"] as? String }) == [
                "cli+1@example.com", "cli+2@example.com"
            ])
    }
}
