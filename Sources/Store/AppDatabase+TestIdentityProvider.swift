import Foundation
import GRDB

/// An identity of the built-in test provider's account chooser.
public struct TestIdentityRecord: Sendable, Equatable, Codable, FetchableRecord {
    public var id: Int64
    public var provider: String
    public var subject: String
    public var email: String
    public var emailVerified: Bool
    public var name: String?

    enum CodingKeys: String, CodingKey {
        case id, provider, subject, email, name
        case emailVerified = "email_verified"
    }
}

/// A code the test provider issued, with what its exchange must prove.
public struct TestCodeGrant: Sendable, Equatable {
    public var identity: TestIdentityRecord
    public var redirectURI: String
    public var codeChallenge: String
    public var nonce: String
}

extension AppDatabase {
    /// The chooser's accounts for one provider, oldest first.
    public func testIdentities(provider: String) async throws -> [TestIdentityRecord] {
        try await pool.read { db in
            try TestIdentityRecord.fetchAll(
                db, sql: "SELECT * FROM test_idp_accounts WHERE provider = ? ORDER BY id",
                arguments: [provider])
        }
    }

    /// Adds (or, for a known subject, updates) a chooser account and returns it.
    public func saveTestIdentity(
        provider: String, subject: String, email: String, emailVerified: Bool, name: String?,
        at now: Date
    ) async throws -> TestIdentityRecord {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO test_idp_accounts (provider, subject, email, email_verified, name, created_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (provider, subject) DO UPDATE SET email = excluded.email,
                        email_verified = excluded.email_verified, name = excluded.name
                    """, arguments: [provider, subject, email, emailVerified, name, now.storedText])
            guard
                let row = try TestIdentityRecord.fetchOne(
                    db, sql: "SELECT * FROM test_idp_accounts WHERE provider = ? AND subject = ?", arguments: [provider, subject])
            else {
                throw StoreError.missingRow("test_idp_accounts")
            }
            return row
        }
    }

    public func testIdentity(id: Int64, provider: String) async throws -> TestIdentityRecord? {
        try await pool.read { db in
            try TestIdentityRecord.fetchOne(
                db, sql: "SELECT * FROM test_idp_accounts WHERE id = ? AND provider = ?",
                arguments: [id, provider])
        }
    }

    public func insertTestCode(
        codeHash: String, provider: String, identityID: Int64, redirectURI: String, codeChallenge: String,
        nonce: String, at now: Date, expiresAt: Date
    ) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO test_idp_codes (code_hash, provider, account_id, redirect_uri, code_challenge, nonce, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    codeHash, provider, identityID, redirectURI, codeChallenge, nonce, now.storedText, expiresAt.storedText
                ])
        }
    }

    /// Spends a test-provider code once, before expiry; nil otherwise.
    public func consumeTestCode(codeHash: String, provider: String, at now: Date) async throws -> TestCodeGrant? {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE test_idp_codes SET consumed_at = ? WHERE code_hash = ? AND provider = ? AND consumed_at IS NULL AND expires_at > ?
                    """, arguments: [now.storedText, codeHash, provider, now.storedText])
            guard db.changesCount == 1,
                let code = try Row.fetchOne(db, sql: "SELECT * FROM test_idp_codes WHERE code_hash = ?", arguments: [codeHash]),
                let identity = try TestIdentityRecord.fetchOne(
                    db, sql: "SELECT * FROM test_idp_accounts WHERE id = ?",
                    arguments: [code["account_id"] as Int64])
            else { return nil }
            return TestCodeGrant(
                identity: identity, redirectURI: code["redirect_uri"], codeChallenge: code["code_challenge"],
                nonce: code["nonce"])
        }
    }
}
