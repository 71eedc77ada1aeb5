import AuthCore
import Foundation
import GRDB

/// A row of `verification_tokens`: one mailed code or link, stored only as its keyed hash.
public struct VerificationTokenRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "verification_tokens"

    /// What proving the token achieves. Stored as text so later purposes need no table rebuild.
    public enum Purpose: String, Codable, Sendable, DatabaseValueConvertible {
        case verifyEmail = "verify_email"
        /// Moves the account to the address kept beside the token in `email_change_requests`.
        case changeEmail = "change_email"
        /// Sets a new password (a mailed link, and in code mode a 6-digit code traded for a link token).
        case resetPassword = "reset_password"
        /// The sign-up mail's "this wasn't me" link: removes the account while nobody has proven
        /// its address (`AppDatabase.disownAccount`).
        case disown
    }

    /// Who asked for a verification mail, which decides what its proof keeps (`AddressProof`).
    public enum Binding: String, Codable, Sendable, DatabaseValueConvertible {
        /// Anyone who typed the address (a resend), or staff: it keeps nothing.
        case none
        /// The sign-up itself: it keeps the credentials the account was made with.
        case signUp = "sign_up"
        /// An app's own backend, naming no session: it keeps the credentials and the sessions live
        /// when it was made.
        case app
    }

    /// A 6-digit code typed into a form, or a 256-bit token inside a link.
    public enum Kind: String, Codable, Sendable, DatabaseValueConvertible {
        case code
        case link
    }

    public var id: Int64?
    public var userID: UserID
    public var purpose: Purpose
    public var kind: Kind
    /// `KeyedHash.hex(secret)`; the secret itself exists only in the mail.
    public var secretHash: String
    public var expiresAt: Date
    /// Wrong codes tried against this token so far.
    public var attempts: Int
    /// When it was used or superseded by a newer token; nil while it is live.
    public var consumedAt: Date?
    public var createdAt: Date
    /// What spending it keeps of what its account held while unproven (`AddressProof`).
    public var binding: Binding = .none

    public init(userID: UserID, purpose: Purpose, kind: Kind, secretHash: String, expiresAt: Date, createdAt: Date) {
        self.userID = userID
        self.purpose = purpose
        self.kind = kind
        self.secretHash = secretHash
        self.expiresAt = expiresAt
        self.attempts = 0
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, purpose, kind, attempts
        case userID = "user_id"
        case secretHash = "secret_hash"
        case expiresAt = "expires_at"
        case consumedAt = "consumed_at"
        case createdAt = "created_at"
        case binding
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
