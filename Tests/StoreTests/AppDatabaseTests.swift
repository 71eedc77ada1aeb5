import AuthCore
import Foundation
import GRDB
import Testing

@testable import Store

/// The schema, its constraints and the file's settings, checked against real SQLite.
@Suite struct AppDatabaseTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws { test = try TestDatabase() }

    @Test func connectionSettings() async throws {
        let settings = try await test.database.pool.write { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
                try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA busy_timeout")
            )
        }
        #expect(settings.0 == "wal")
        #expect(settings.1 == 1)
        #expect(settings.2 == 1)  // NORMAL
        #expect(settings.3 == 5000)
    }

    @Test func migrationsAreNamedAndApplied() async throws {
        let applied = try await test.database.pool.read { db in try AppDatabase.migrator.appliedIdentifiers(db) }
        // Every registered step is applied; the v1 steps come first, in order (later branches append).
        #expect(applied == Set(AppDatabase.migrator.migrations))
        #expect(
            Array(AppDatabase.migrator.migrations.prefix(6))
                == ["v1-users", "v1-verification-tokens", "v1-sessions", "v1-mails", "v1-audit-events", "v1-secrets"])
    }

    @Test func userRoundTripsWithPlainIDAndJSONProfile() async throws {
        let record = UserRecord(
            id: UserID("abc123def456ghi"), email: " Ann@Example.COM ", passwordHash: "h",
            verified: false, profile: Profile(["name": .string("Ann"), "age": .number(3)]),
            createdAt: now, updatedAt: now)
        _ = try await test.database.insertUser(record, verificationToken: nil)
        let raw = try await test.database.pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT id, email, email_normalized, profile, created_at FROM users")
            return row.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.0, String.fromDatabaseValue($0.1)) }) }
        }
        #expect(raw?["id"] == .some("abc123def456ghi"))
        #expect(raw?["email"] == .some("Ann@Example.COM"))
        #expect(raw?["email_normalized"] == .some("ann@example.com"))
        #expect(raw?["profile"] == .some(#"{"age":3,"name":"Ann"}"#))
        #expect(raw?["created_at"] == .some("2027-01-15 08:00:00.000"))
        #expect(try await test.database.user(email: "ANN@example.com") == record)
        #expect(try await test.database.user(id: UserID("abc123def456ghi")) == record)
    }

    @Test func duplicateEmailInOtherCaseIsEmailExists() async throws {
        let first = UserRecord(
            id: UserID("a"), email: "x@example.com", passwordHash: nil, verified: true,
            profile: Profile(), createdAt: now, updatedAt: now)
        _ = try await test.database.insertUser(first, verificationToken: nil)
        let second = UserRecord(
            id: UserID("b"), email: "X@EXAMPLE.com", passwordHash: nil, verified: true,
            profile: Profile(), createdAt: now, updatedAt: now)
        let token = VerificationTokenRecord(
            userID: UserID("b"), purpose: .verifyEmail, kind: .code,
            secretHash: "h", expiresAt: now, createdAt: now)
        await #expect(throws: AuthError.emailExists) {
            try await test.database.insertUser(second, verificationToken: token)
        }
        let counts = try await test.database.pool.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM users"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM verification_tokens")
            )
        }
        #expect(counts.0 == 1 && counts.1 == 0)
    }

    @Test func schemaRejectsImpossibleRows() async throws {
        await #expect(throws: DatabaseError.self) {
            try await test.database.pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO verification_tokens (user_id, purpose, kind, secret_hash, expires_at, created_at)
                        VALUES ('nobody', 'verify_email', 'code', 'h', '2030-01-01', '2030-01-01')
                        """)
            }
        }
        await #expect(throws: DatabaseError.self) {
            try await test.database.pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO users (id, email, email_normalized, profile, created_at, updated_at)
                        VALUES ('u', 'a@b.co', 'A@b.co', '{}', '2030-01-01', '2030-01-01')
                        """)
            }
        }
        await #expect(throws: DatabaseError.self) {
            try await test.database.pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO users (id, email, email_normalized, profile, created_at, updated_at)
                        VALUES ('u', 'a@b.co', 'a@b.co', '[1]', '2030-01-01', '2030-01-01')
                        """)
            }
        }
    }

    @Test func deletingAUserCascadesToItsTokens() async throws {
        let user = UserRecord(
            id: UserID("u1"), email: "c@example.com", passwordHash: nil, verified: false,
            profile: Profile(), createdAt: now, updatedAt: now)
        let token = VerificationTokenRecord(
            userID: user.id, purpose: .verifyEmail, kind: .link,
            secretHash: "h", expiresAt: now, createdAt: now)
        _ = try await test.database.insertUser(user, verificationToken: token)
        let remaining = try await test.database.pool.write { db in
            try db.execute(sql: "DELETE FROM users")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM verification_tokens")
        }
        #expect(remaining == 0)
    }

    @Test func secretKeyIsCreatedOnceAndKept() async throws {
        let key = try test.database.secretKey(named: "keyed-hash")
        #expect(key.count == 32)
        #expect(try test.database.secretKey(named: "keyed-hash") == key)
        #expect(try test.database.secretKey(named: "csrf") != key)
        let reopened = try AppDatabase(path: test.path)
        #expect(try reopened.secretKey(named: "keyed-hash") == key)
    }
}
