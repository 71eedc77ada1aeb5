import AuthCore
import Foundation
import GRDB
import Logging
import Secrets
import Synchronization
import Testing

@testable import LocalAuth
@testable import Store

/// A clock tests move by hand, to reach expiry without waiting.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0.addTimeInterval(seconds) }
    }
}

/// One hasher for every test, as in production: its four threads bound the hashing load however
/// many tests run in parallel.
let sharedHasher = Result { try PasswordHasher(cost: .minimal, pool: BlockingWorkPool(threadCount: 4, name: "test-pwhash")) }

/// A real backend over a real SQLite file in its own temp directory (removed afterwards).
final class Harness: Sendable {
    let directory: URL
    let path: String
    let database: AppDatabase
    let clock = TestClock()
    let hasher: PasswordHasher
    let backend: LocalAccounts

    init(_ configuration: LocalAccounts.Configuration = LocalAccounts.Configuration()) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("gatehouse.sqlite").path
        database = try AppDatabase(path: path)
        hasher = try sharedHasher.get()
        backend = try Self.backend(database: database, hasher: hasher, clock: clock, configuration: configuration)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A backend wired like production: mailbox mailer, keyed hash from the file's own secret.
    static func backend(
        database: AppDatabase, hasher: PasswordHasher, clock: TestClock,
        configuration: LocalAccounts.Configuration
    ) throws -> LocalAccounts {
        LocalAccounts(
            configuration: configuration, database: database, hasher: hasher,
            mailer: try mailbox(database: database, clock: clock),
            keyedHash: try KeyedHash(key: database.secretKey(named: "keyed-hash")), clock: { clock.now },
            logger: Logger(label: "test.local-auth"))
    }

    /// The dev mailbox over `database`, sealed under the file's own keyed-hash secret.
    static func mailbox(database: AppDatabase, clock: TestClock) throws -> MailboxMailer {
        try MailboxMailer(
            database: database, keyedHash: KeyedHash(key: database.secretKey(named: "keyed-hash")), clock: { clock.now })
    }

    private func mails(to email: String, limit: Int) async throws -> [MailRecord] {
        try await Self.mailbox(database: database, clock: clock).mails(to: email, limit: limit)
    }

    /// The newest mail to `email`, failing the test when there is none.
    func latestMail(to email: String) async throws -> MailRecord {
        try #require(try await mails(to: email, limit: 1).first)
    }

    func mailCount(to email: String) async throws -> Int {
        try await mails(to: email, limit: 100).count
    }

    /// How many mails to `email` have `subject`.
    func mailCount(to email: String, subject: String) async throws -> Int {
        try await mails(to: email, limit: 100).filter { $0.subject == subject }.count
    }

    /// Signs up and returns the mailed code.
    func signUpForCode(_ email: String, password: String = "quiet-otter-321", name: String? = nil) async throws -> String {
        _ = try await backend.signUp(SignUpRequest(email: email, password: password, name: name))
        return try #require(try await latestMail(to: email).code)
    }

    func count(_ table: String) async throws -> Int {
        try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }
}

/// The error thrown by `body`, or nil when it did not throw.
func caughtError(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// A code other than `code`, same length.
func wrongCode(than code: String) -> String {
    code == "000000" ? "111111" : "000000"
}
