import AuthCore
import Foundation
import Logging
import Secrets
import ServerSeam
import Store

/// The embedded store's account rules: accounts, codes and links in Gatehouse's own SQLite file.
/// `LocalBackend` is its face on the seam; nothing else calls it.
///
/// Every rule that must hold under concurrency is enforced by the database (unique normalized
/// email, conditional UPDATEs for codes); this type validates input, hashes passwords off the
/// cooperative pool, and mails codes and links. It never logs passwords, codes or tokens.
public final class LocalAccounts: Sendable {
    let database: AppDatabase
    let hasher: PasswordHasher
    let mailer: any Mailer
    /// Hashes codes and link tokens before they are stored or looked up.
    let keyedHash: KeyedHash
    /// Signs the secrets of mailed links (`LinkToken`).
    let linkTokens: HS256Token
    let configuration: Configuration
    let clock: @Sendable () -> Date
    let logger: Logger

    public init(
        configuration: Configuration = Configuration(), database: AppDatabase, hasher: PasswordHasher,
        mailer: any Mailer, keyedHash: KeyedHash, clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "gatehouse.local-auth")
    ) {
        self.database = database
        self.hasher = hasher
        // A reserved test address (`--test-address-suffix`) and a guest's placeholder are mailed nothing.
        let guarded = GuestAddressMailer(wrapped: mailer, logger: logger)
        self.mailer =
            configuration.testAddresses.map { TestAddressMailer(wrapped: guarded, addresses: $0, logger: logger) } ?? guarded
        self.keyedHash = keyedHash
        self.linkTokens = HS256Token(derivedFrom: keyedHash, context: "link-tokens")
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    public var verificationMode: VerificationMode { configuration.verification }

    public func user(_ id: UserID) async throws -> User {
        guard let record = try await database.user(id: id) else { throw AuthError.userNotFound }
        return record.user
    }
}
