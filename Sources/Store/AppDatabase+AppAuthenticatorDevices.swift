import Foundation
import GRDB

/// What an app's backend keeps about an account's authenticator beyond the account's own key (a
/// SuperTokens core's TOTP "device"): the name it gave it, when a key was handed out and not yet
/// confirmed, and the wrong codes since the account's last sign-in.
public struct AppAuthenticatorDeviceRecord: Sendable, Equatable {
    public var name: String?
    /// When a key was handed out for enrolment; nil once the authenticator is on.
    public var pendingSince: Date?
    public var failedAttempts: Int

    public init(name: String? = nil, pendingSince: Date? = nil, failedAttempts: Int = 0) {
        (self.name, self.pendingSince, self.failedAttempts) = (name, pendingSince, failedAttempts)
    }
}

extension AppDatabase {
    /// The account's device entry; an empty one when none is kept.
    public func appAuthenticatorDevice(userID: String) async throws -> AppAuthenticatorDeviceRecord {
        try await pool.read { db in try Self.appAuthenticatorDevice(db, userID) }
    }

    /// Changes the account's entry (made empty first when none is kept) in one transaction; the entry after.
    @discardableResult
    public func updateAppAuthenticatorDevice(
        userID: String, _ change: @escaping @Sendable (inout AppAuthenticatorDeviceRecord) -> Void
    ) async throws -> AppAuthenticatorDeviceRecord {
        try await pool.write { db in
            var entry = try Self.appAuthenticatorDevice(db, userID)
            change(&entry)
            try db.execute(
                sql: """
                    INSERT INTO app_authenticator_devices (user_id, name, pending_since, failed_attempts) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET
                        name = excluded.name, pending_since = excluded.pending_since, failed_attempts = excluded.failed_attempts
                    """,
                arguments: [userID, entry.name, entry.pendingSince?.storedText, entry.failedAttempts])
            return entry
        }
    }

    /// Forgets the account's entry (its authenticator was removed).
    public func deleteAppAuthenticatorDevice(userID: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM app_authenticator_devices WHERE user_id = ?", arguments: [userID])
        }
    }

    private static func appAuthenticatorDevice(_ db: Database, _ userID: String) throws -> AppAuthenticatorDeviceRecord {
        guard
            let row = try Row.fetchOne(db, sql: "SELECT * FROM app_authenticator_devices WHERE user_id = ?", arguments: [userID])
        else { return AppAuthenticatorDeviceRecord() }
        return AppAuthenticatorDeviceRecord(
            name: try row.optionalString("name"), pendingSince: try row.optionalDate("pending_since"),
            failedAttempts: Int(try row.int64("failed_attempts")))
    }
}
