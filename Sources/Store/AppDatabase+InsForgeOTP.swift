import Foundation
import GRDB

extension AppDatabase {
    /// Keeps `otpID` as the newest sign-in code request for the address whose keyed hash is
    /// `emailHash`, until `expiresAt`; expired requests are dropped on the way.
    public func rememberOTPRequest(emailHash: String, otpID: String, expiresAt: Date, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM insforge_otp_requests WHERE expires_at <= ?", arguments: [now.storedText])
            try db.execute(
                sql: "INSERT OR REPLACE INTO insforge_otp_requests (email_hash, otp_id, expires_at) VALUES (?, ?, ?)",
                arguments: [emailHash, otpID, expiresAt.storedText])
        }
    }

    /// The newest unexpired request's id for the address, if any.
    public func otpRequest(emailHash: String, now: Date) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT otp_id FROM insforge_otp_requests WHERE email_hash = ? AND expires_at > ?",
                arguments: [emailHash, now.storedText])
        }
    }
}
