import AuthCore
import Foundation
import GRDB

/// A row of `external_auths`: an embedded account linked to a provider identity.
public struct ExternalAuthRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "external_auths"

    public var id: String
    public var userID: UserID
    public var provider: String
    public var providerID: String
    public var createdAt: Date

    public init(id: String, userID: UserID, provider: String, providerID: String, createdAt: Date) {
        self.id = id
        self.userID = userID
        self.provider = provider
        self.providerID = providerID
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, provider
        case userID = "user_id"
        case providerID = "provider_id"
        case createdAt = "created_at"
    }

    public var externalAuth: ExternalAuth {
        ExternalAuth(id: id, userID: userID, provider: provider, providerID: providerID, createdAt: createdAt)
    }
}

extension AppDatabase {
    /// Links an account to a provider identity. The identity already linked (to anyone), or the
    /// account already linked to this provider → `AuthError.validation`; unknown account → `.userNotFound`.
    public func insertExternalAuth(_ record: ExternalAuthRecord) async throws {
        try await pool.write { db in
            guard try UserRecord.exists(db, key: record.userID.rawValue) else { throw AuthError.userNotFound }
            do {
                try record.insert(db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw AuthError.validation([FieldError(field: "providerId", message: "This identity is already linked.")])
            }
        }
    }

    public func externalAuths(userID: UserID) async throws -> [ExternalAuthRecord] {
        try await pool.read { db in
            try ExternalAuthRecord.filter(ExternalAuthRecord.CodingKeys.userID == userID.rawValue)
                .order(ExternalAuthRecord.CodingKeys.provider).fetchAll(db)
        }
    }

    /// Removes the account's link to `provider`; returns whether there was one.
    @discardableResult
    public func deleteExternalAuth(userID: UserID, provider: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM external_auths WHERE user_id = ? AND provider = ?",
                           arguments: [userID.rawValue, provider])
            return db.changesCount > 0
        }
    }
}
