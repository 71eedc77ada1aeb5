import AuthCore
import Foundation
import HTTPServer
import Logging
import Secrets
import Synchronization
import Testing
import TwoFactor

@testable import Accounts
@testable import LocalAuth
@testable import Store

/// One password hasher for every test, at its cheapest cost: the owners' rules are under test, not argon2.
let sharedPasswords = Result {
    try PasswordHasher(cost: .minimal, pool: BlockingWorkPool(threadCount: 2, name: "accounts-pwhash"))
}

/// The owners' clock, moved by hand.
final class HandClock: Sendable {
    private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { time.withLock { $0 } }
    func advance(by seconds: TimeInterval) { time.withLock { $0.addTimeInterval(seconds) } }
}

/// The owners over the embedded backend and a real SQLite file in a temp directory (removed
/// afterwards), called directly: no server, no HTTP.
final class AccountsHarness: Sendable {
    let directory: URL
    let database: AppDatabase
    private let clock = HandClock()
    let backend: LocalBackend
    let accounts: Accounts

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-accounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        let hasher = try KeyedHash(key: try database.secretKey(named: "keyed-hash"))
        let passwords = try sharedPasswords.get()
        let now: @Sendable () -> Date = { [clock] in clock.now }
        var logger = Logger(label: "test.accounts")
        logger.logLevel = .warning
        backend = LocalBackend(
            accounts: LocalAccounts(
                configuration: LocalAccounts.Configuration(), database: database, hasher: passwords,
                mailer: try MailboxMailer(database: database, keyedHash: hasher, clock: now), keyedHash: hasher, clock: now,
                logger: logger))
        accounts = Accounts(
            backend: backend, database: AccountsDatabase(database), hasher: hasher, passwords: passwords, rateLimits: true,
            sessionLifetime: 7 * 24 * 3600, secureCookies: false,
            webhookBox: try SecretBox(key: hasher.derivedKey(for: "webhook-secrets")), clock: now, logger: logger)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var now: Date { clock.now }

    /// Moves the owners' clock on, to reach a window's end without waiting.
    func advance(by seconds: TimeInterval) { clock.advance(by: seconds) }

    static let password = "quiet-otter-321"

    /// A request as a front-end hands it to an owner, from `ip`.
    func request(from ip: String = "203.0.113.7") throws -> Request {
        try Request(method: .post, target: "/", remoteAddress: ip, isLoopbackPeer: false)
    }

    /// An account made by staff, its address proven or not.
    @discardableResult
    func account(_ email: String, verified: Bool = true) async throws -> User {
        try await backend.admin.createUser(NewUser(email: email, password: Self.password, verified: verified))
    }

    /// Turns the account's authenticator app on; returns its key, the confirming code's step spent.
    func authenticator(for email: String) async throws -> [UInt8] {
        let session = try #require(try await backend.signIn(email: email, password: Self.password).session)
        let secret = try #require(Base32.decode(try await backend.beginTOTPEnrollment(session: session).secret))
        _ = try await backend.confirmTOTPEnrollment(code: try TOTP.code(secret: secret, at: now), session: session)
        advance(by: 30)
        return secret
    }
}
