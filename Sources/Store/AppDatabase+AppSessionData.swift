import AuthCore
import Foundation
import GRDB

/// The app's data on one of its sessions (SuperTokens' `userDataInDatabase`, and the
/// `userDataInJWT` its next refresh puts in the access token; nil when the token's own is current).
public struct AppSessionData: Sendable, Equatable {
    public var inJWT: [String: JSONValue]?
    public var inDatabase: [String: JSONValue]

    public init(inJWT: [String: JSONValue]? = nil, inDatabase: [String: JSONValue] = [:]) {
        (self.inJWT, self.inDatabase) = (inJWT, inDatabase)
    }
}

extension AppDatabase {
    /// The app's data on session row `sessionID`; nil when none was set.
    public func appSessionData(sessionID: Int64) async throws -> AppSessionData? {
        // A hot read: every SuperTokens refresh reads the session's claims.
        try hotReads.read { connection in
            try connection.first("SELECT in_jwt, in_database FROM app_session_data WHERE session_id = ?", [.integer(sessionID)]) {
                row in
                AppSessionData(
                    inJWT: try Self.object(row.optionalString("in_jwt")),
                    inDatabase: try Self.object(row.string("in_database")) ?? [:])
            }
        }
    }

    /// Sets the given parts of the app's data on session row `sessionID` (the rest kept); the row
    /// goes with its session.
    public func setAppSessionData(sessionID: Int64, inJWT: [String: JSONValue]?, inDatabase: [String: JSONValue]?) async throws {
        let jwtText = try inJWT.map(Self.json)
        let databaseText = try inDatabase.map(Self.json)
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO app_session_data (session_id, in_jwt, in_database) VALUES (?, ?, coalesce(?, '{}'))
                    ON CONFLICT (session_id) DO UPDATE SET
                        in_jwt = coalesce(excluded.in_jwt, in_jwt),
                        in_database = CASE WHEN ? IS NULL THEN in_database ELSE excluded.in_database END
                    """,
                arguments: [sessionID, jwtText, databaseText, databaseText])
        }
    }

    private static func object(_ text: String?) throws -> [String: JSONValue]? {
        guard let text else { return nil }
        guard case .object(let fields)? = JSONValue(parsing: text) else {
            throw DatabaseError(message: "app session data is not an object")
        }
        return fields
    }
}
