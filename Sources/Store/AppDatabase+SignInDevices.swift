import Foundation
import GRDB

extension AppDatabase {
    /// How long a device is kept after its code ended: a late `consume` still answers the core's
    /// expired-code status, and the table stays bounded.
    static let signInDeviceRetention: TimeInterval = 86_400

    /// Keeps a new device; devices whose code ended a retention period ago go on the way.
    public func insertSignInDevice(_ device: SignInDeviceRecord, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM app_sign_in_devices WHERE expires_at <= ?", arguments: [now.storedText])
            try db.execute(
                sql: """
                    INSERT INTO app_sign_in_devices (device_id, pre_auth_session_id, email, account_existed, otp_id, code_id,
                        code_created_at, code_lifetime, maximum_attempts, failed_attempts, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    device.deviceID, device.preAuthSessionID, device.email, device.accountExisted, device.otpID, device.codeID,
                    device.codeCreatedAt.storedText, device.codeLifetime, device.maximumAttempts, device.failedAttempts,
                    Self.sweepTime(device).storedText
                ])
        }
    }

    /// The device with this id, if it is kept.
    public func signInDevice(id: String) async throws -> SignInDeviceRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM app_sign_in_devices WHERE device_id = ?", arguments: [id])
                .map(SignInDeviceRecord.init(row:))
        }
    }

    /// The device a link's pre-auth session id names, if it is kept.
    public func signInDevice(preAuthSessionID: String) async throws -> SignInDeviceRecord? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM app_sign_in_devices WHERE pre_auth_session_id = ?", arguments: [preAuthSessionID]
            )
            .map(SignInDeviceRecord.init(row:))
        }
    }

    /// The devices of an address (any letter case), oldest first.
    public func signInDevices(email: String) async throws -> [SignInDeviceRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM app_sign_in_devices WHERE email = ? COLLATE NOCASE ORDER BY code_created_at",
                arguments: [email.trimmingCharacters(in: .whitespacesAndNewlines)]
            ).map(SignInDeviceRecord.init(row:))
        }
    }

    /// Moves a device to a new code (a resend): its wrong tries start again. Nil when it is gone.
    public func moveSignInDevice(
        id: String, otpID: String, codeID: String, createdAt: Date, lifetime: TimeInterval, maximumAttempts: Int
    ) async throws -> SignInDeviceRecord? {
        try await pool.write { db in
            guard
                var device = try Row.fetchOne(db, sql: "SELECT * FROM app_sign_in_devices WHERE device_id = ?", arguments: [id])
                    .map(SignInDeviceRecord.init(row:))
            else { return nil }
            (device.otpID, device.codeID, device.codeCreatedAt) = (otpID, codeID, createdAt)
            (device.codeLifetime, device.maximumAttempts, device.failedAttempts) = (lifetime, maximumAttempts, 0)
            try db.execute(
                sql: """
                    UPDATE app_sign_in_devices SET otp_id = ?, code_id = ?, code_created_at = ?, code_lifetime = ?,
                        maximum_attempts = ?, failed_attempts = 0, expires_at = ? WHERE device_id = ?
                    """,
                arguments: [
                    otpID, codeID, createdAt.storedText, lifetime, maximumAttempts, Self.sweepTime(device).storedText, id
                ])
            return device
        }
    }

    /// Counts a wrong code for the device; the count so far (0 when it is gone).
    public func countSignInDeviceFailure(id: String) async throws -> Int {
        try await pool.write { db in
            try Int.fetchOne(
                db,
                sql:
                    "UPDATE app_sign_in_devices SET failed_attempts = failed_attempts + 1 WHERE device_id = ? RETURNING failed_attempts",
                arguments: [id]) ?? 0
        }
    }

    /// Forgets a device whose code or link was spent.
    public func deleteSignInDevice(id: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM app_sign_in_devices WHERE device_id = ?", arguments: [id])
        }
    }

    private static func sweepTime(_ device: SignInDeviceRecord) -> Date {
        device.codeCreatedAt.addingTimeInterval(device.codeLifetime + signInDeviceRetention)
    }
}
