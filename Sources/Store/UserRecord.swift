import AuthCore
import Foundation
import GRDB

/// A row of `users`: an account of the embedded backend.
public struct UserRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "users"

    public var id: UserID
    /// The address as the person typed it (trimmed), used when mailing them.
    public var email: String
    /// `EmailAddress.normalize(email)`; unique, so one address is one account in any letter case.
    public var emailNormalized: String
    /// argon2id (or an imported bcrypt) hash; nil for accounts that cannot sign in with a password.
    public var passwordHash: String?
    public var verified: Bool
    public var profile: Profile
    public var disabled: Bool
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UserID, email: String, passwordHash: String?, verified: Bool, profile: Profile,
        disabled: Bool = false, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        self.emailNormalized = EmailAddress.normalize(email)
        self.passwordHash = passwordHash
        self.verified = verified
        self.profile = profile
        self.disabled = disabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, email, verified, profile, disabled
        case emailNormalized = "email_normalized"
        case passwordHash = "password_hash"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// The account as every backend reports it (without the password hash).
    public var user: User {
        User(
            id: id, email: email, emailVerified: verified, profile: profile, disabled: disabled,
            createdAt: createdAt, updatedAt: updatedAt)
    }
}

extension UserRecord {
    /// Reads the columns by name, the profile with `JSONValue(parsing:)`: GRDB's `Decodable` path
    /// builds a keyed decoder and a `JSONDecoder` per row, and a list page reads fifty rows.
    public init(row: Row) throws {
        try self.init(columns: row)
    }

    init(columns row: some ColumnValues) throws {
        id = UserID(try row.string(CodingKeys.id.rawValue))
        email = try row.string(CodingKeys.email.rawValue)
        emailNormalized = try row.string(CodingKeys.emailNormalized.rawValue)
        passwordHash = try row.optionalString(CodingKeys.passwordHash.rawValue)
        verified = try row.bool(CodingKeys.verified.rawValue)
        guard case .object(let fields)? = JSONValue(parsing: try row.string(CodingKeys.profile.rawValue)) else {
            throw DatabaseError(message: "users.profile of \(id) is not a JSON object")
        }
        profile = Profile(fields)
        disabled = try row.bool(CodingKeys.disabled.rawValue)
        createdAt = try row.date(CodingKeys.createdAt.rawValue)
        updatedAt = try row.date(CodingKeys.updatedAt.rawValue)
    }
}
