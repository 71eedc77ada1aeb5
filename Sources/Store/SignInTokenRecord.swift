import AuthCore
import Foundation
import GRDB

/// A row of `sign_in_tokens`: one passwordless sign-in in flight — a mailed 6-digit code (found by
/// its otp id) or a mailed magic link (found by its token). Every secret is stored only as a keyed
/// hash. Unknown addresses get a row too (no user, never mailed unless sign-up is allowed), so
/// asking costs the same work for every address.
public struct SignInTokenRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "sign_in_tokens"

    public enum Kind: String, Codable, Sendable, DatabaseValueConvertible {
        case code
        case link
    }

    public var id: Int64?
    public var kind: Kind
    /// Keyed hash of the otp id (codes) or of the link's token (links); unique.
    public var lookupHash: String
    /// Keyed hash of the otp id with the code; nil for links.
    public var codeHash: String?
    /// The address as typed; the account's when one existed at request time.
    public var email: String
    public var emailNormalized: String
    /// The account the sign-in is for; nil when the address had none.
    public var userID: UserID?
    /// With no account: whether a right code or link creates one.
    public var allowSignUp: Bool
    /// Links only: the hash of the nonce kept in the asking browser's cookie.
    public var browserBinding: String?
    public var expiresAt: Date
    public var attempts: Int
    public var consumedAt: Date?
    public var createdAt: Date
    /// With no account: the profile the account a right code or link creates gets (the sign-up's
    /// name and its parts); nil for none.
    public var signUpProfile: Profile?

    public init(
        kind: Kind, lookupHash: String, codeHash: String?, email: String, userID: UserID?, allowSignUp: Bool,
        browserBinding: String?, expiresAt: Date, createdAt: Date, signUpProfile: Profile? = nil
    ) {
        self.kind = kind
        self.lookupHash = lookupHash
        self.codeHash = codeHash
        self.email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        self.emailNormalized = EmailAddress.normalize(email)
        self.userID = userID
        self.allowSignUp = allowSignUp
        self.browserBinding = browserBinding
        self.expiresAt = expiresAt
        self.attempts = 0
        self.createdAt = createdAt
        self.signUpProfile = signUpProfile
    }

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, kind, email, attempts
        case lookupHash = "lookup_hash"
        case codeHash = "code_hash"
        case emailNormalized = "email_normalized"
        case userID = "user_id"
        case allowSignUp = "allow_sign_up"
        case browserBinding = "browser_binding"
        case expiresAt = "expires_at"
        case consumedAt = "consumed_at"
        case createdAt = "created_at"
        case signUpProfile = "sign_up_profile"
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
