import AuthCore
import Foundation
import GRDB
import Testing

@testable import Store

/// The per-request reads that bypass GRDB (`HotReads`) answer exactly as GRDB's reads of the same
/// rows do: the same dates to the bit, the same boundaries, every write seen at once.
@Suite struct HotReadsTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let alice = UserID("alice0000000000")

    init() throws { test = try TestDatabase() }

    func newSession(_ tokenHash: String, createdAt: Date, expiresAt: Date) -> NewSession {
        NewSession(
            tokenHash: tokenHash, userID: alice, userAgent: "UA", ip: "127.0.0.1", createdAt: createdAt,
            expiresAt: expiresAt)
    }

    /// GRDB's own reading of the session row, for comparison.
    func grdbSession(_ tokenHash: String) async throws -> SessionRecord? {
        try await test.database.pool.read { db in
            try SessionRecord.fetchOne(db, sql: "SELECT * FROM sessions WHERE token_hash = ?", arguments: [tokenHash])
        }
    }

    @Test func datesReadBackAsGRDBReadsThem() async throws {
        var generator = SystemRandomNumberGenerator()
        for index in 0..<300 {
            // Any millisecond between 1970 and 2200, and some with sub-millisecond noise GRDB drops.
            let created = Date(
                timeIntervalSince1970: Double(Int64.random(in: 0..<7_258_118_400_000, using: &generator)) / 1000
                    + (index.isMultiple(of: 3) ? Double.random(in: 0..<0.001) : 0))
            let expires = Date(timeIntervalSince1970: 7_258_118_400 + Double(index) * 0.001)
            _ = try await test.database.createSession(newSession("h\(index)", createdAt: created, expiresAt: expires))
            let hot = try #require(
                try await test.database.activeSession(tokenHash: "h\(index)", now: created, idleTimeout: nil))
            #expect(hot == (try await grdbSession("h\(index)")))
        }
    }

    @Test func expiryIsStrictToTheMillisecond() async throws {
        let expires = now.addingTimeInterval(3600.123)
        _ = try await test.database.createSession(newSession("t", createdAt: now, expiresAt: expires))
        #expect(try await test.database.activeSession(tokenHash: "t", now: expires.addingTimeInterval(-0.001)) != nil)
        #expect(try await test.database.activeSession(tokenHash: "t", now: expires) == nil)
        // The same rule where it runs inside a write (the email-change confirmation).
        let inside = try await test.database.pool.read { db in
            try AppDatabase.activeSession(db, tokenHash: "t", now: expires, idleTimeout: nil)
        }
        #expect(inside == nil)
    }

    @Test func idleTimeoutCountsFromTheLastUse() async throws {
        let session = try await test.database.createSession(
            newSession("t", createdAt: now, expiresAt: now.addingTimeInterval(86_400)))
        try await test.database.touchSession(id: session.id, at: now.addingTimeInterval(100.5))
        let later = now.addingTimeInterval(700.5)
        #expect(try await test.database.activeSession(tokenHash: "t", now: later, idleTimeout: 600.001) != nil)
        #expect(try await test.database.activeSession(tokenHash: "t", now: later, idleTimeout: 600) == nil)
        #expect(try await test.database.activeSessionWithCredential(tokenHash: "t", now: later, idleTimeout: 600) == nil)
    }

    @Test func aRevocationIsSeenByTheNextRead() async throws {
        let session = try await test.database.createSession(
            newSession("t", createdAt: now, expiresAt: now.addingTimeInterval(3600)))
        for _ in 0..<3 { #expect(try await test.database.activeSession(tokenHash: "t", now: now) != nil) }
        try await test.database.revokeSession(id: session.id, at: now)
        #expect(try await test.database.activeSession(tokenHash: "t", now: now) == nil)
    }

    /// A row named by its id (SuperTokens' session handle) reads whatever its state, with the
    /// credential kept beside it, as GRDB reads the row; a revocation shows at once, and the
    /// credential is gone with it (a trigger wipes it).
    @Test func aSessionByIDIsReadInAnyStateWithItsCredential() async throws {
        let kept = try await test.database.createSession(newSession("t", createdAt: now, expiresAt: now.addingTimeInterval(60)))
        let bare = try await test.database.createSession(newSession("u", createdAt: now, expiresAt: now.addingTimeInterval(60)))
        try await test.database.saveCredential("sealed", sessionID: kept.id)
        let read = try #require(try await test.database.sessionWithCredential(id: kept.id))
        let grdbRead = try await grdbSession("t")
        #expect(read.0 == grdbRead && read.1 == "sealed")
        let withoutCredential = try #require(try await test.database.sessionWithCredential(id: bare.id))
        #expect(withoutCredential.1 == nil)
        try await test.database.revokeSession(id: kept.id, at: now)
        let revoked = try #require(try await test.database.sessionWithCredential(id: kept.id))
        let grdbRevoked = try await grdbSession("t")
        #expect(revoked.0.revokedAt == now && revoked.0 == grdbRevoked && revoked.1 == nil)
        let unknown = try await test.database.sessionWithCredential(id: bare.id + 100)
        #expect(unknown == nil)
    }

    @Test func aDateInAnotherSQLiteFormatStillReads() async throws {
        _ = try await test.database.createSession(
            newSession("t", createdAt: now, expiresAt: now.addingTimeInterval(3600)))
        // As someone editing the file in the sqlite3 shell might write it.
        try await test.database.pool.write { db in
            try db.execute(sql: "UPDATE sessions SET expires_at = '2100-01-01T10:00' WHERE token_hash = 't'")
        }
        let hot = try #require(try await test.database.activeSession(tokenHash: "t", now: now))
        #expect(hot.expiresAt == Date(timeIntervalSince1970: 4_102_480_800))
        #expect(hot == (try await grdbSession("t")))
    }

    @Test func theAccountBehindALiveSessionIsReadInOneStatement() async throws {
        let user = try await test.database.insertUser(
            UserRecord(
                id: alice, email: "alice@example.com", passwordHash: nil, verified: true,
                profile: Profile(["name": .string("Alice")]), createdAt: now.addingTimeInterval(-86_400.25),
                updatedAt: now.addingTimeInterval(-3_600.5)),
            verificationToken: nil)
        _ = try await test.database.createSession(newSession("t", createdAt: now, expiresAt: now.addingTimeInterval(3600)))
        // `id`, `created_at` and `updated_at` are in both tables: the account's own are read.
        #expect(try await test.database.activeSessionUser(tokenHash: "t", now: now)?.value == user)
        let id = try #require(try await test.database.activeSessionUserID(tokenHash: "t", now: now))
        #expect(id.userID == alice && !id.disabled)
        try await test.database.pool.write { db in
            try db.execute(sql: "UPDATE users SET disabled = 1 WHERE id = ?", arguments: [alice.rawValue])
        }
        #expect(try await test.database.activeSessionUserID(tokenHash: "t", now: now)?.disabled == true)
        // Past its end the session has no account.
        #expect(try await test.database.activeSessionUser(tokenHash: "t", now: now.addingTimeInterval(3600)) == nil)
        #expect(try await test.database.activeSessionUserID(tokenHash: "t", now: now.addingTimeInterval(3600)) == nil)
        try await test.database.pool.write { db in
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [alice.rawValue])
        }
        #expect(try await test.database.activeSessionUser(tokenHash: "t", now: now) == nil)
        #expect(try await test.database.activeSessionUserID(tokenHash: "t", now: now) == nil)
    }

    @Test func aSignedInCallsOwnRowsAreReadWithItsSessionCheck() async throws {
        _ = try await test.database.insertUser(
            UserRecord(
                id: alice, email: "alice@example.com", passwordHash: nil, verified: true, profile: Profile([:]),
                createdAt: now, updatedAt: now),
            verificationToken: nil)
        _ = try await test.database.createSession(newSession("t", createdAt: now, expiresAt: now.addingTimeInterval(3600)))
        let database = test.database

        // No authenticator app and no links: the owner still answers, with nothing beside it.
        var totp = try #require(try await database.activeSessionTOTPStatus(tokenHash: "t", now: now))
        #expect(totp.userID == alice && !totp.disabled && totp.value == TOTPStatus(enabled: false, recoveryCodesLeft: 0))
        var links = try #require(try await database.activeSessionExternalAuths(tokenHash: "t", now: now))
        #expect(links.userID == alice && links.value.isEmpty)

        // A key waiting for its first code is not on, and its codes are not counted.
        #expect(try await database.setPendingTOTPSecret(.user(alice), sealed: [1, 2, 3], at: now))
        totp = try #require(try await database.activeSessionTOTPStatus(tokenHash: "t", now: now))
        #expect(totp.value == TOTPStatus(enabled: false, recoveryCodesLeft: 0))
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE totp_credentials SET enabled = 1, secret_sealed = X'01' WHERE user_id = ?",
                arguments: [alice.rawValue])
            for (index, used) in [nil, nil, now.storedText].enumerated() {
                try db.execute(
                    sql: "INSERT INTO recovery_codes (user_id, code_hash, created_at, used_at) VALUES (?, ?, ?, ?)",
                    arguments: [alice.rawValue, String(repeating: "\(index)", count: 64), now.storedText, used])
            }
            for provider in ["github", "acme"] {
                try db.execute(
                    sql: "INSERT INTO external_auths (user_id, provider, subject, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [alice.rawValue, provider, "sub-\(provider)", now.storedText])
            }
        }
        totp = try #require(try await database.activeSessionTOTPStatus(tokenHash: "t", now: now))
        #expect(totp.value == TOTPStatus(enabled: true, recoveryCodesLeft: 2))
        #expect(try await database.totpStatus(userID: alice) == totp.value)
        links = try #require(try await database.activeSessionExternalAuths(tokenHash: "t", now: now))
        #expect(links.value.map(\.provider) == ["github", "acme"])
        #expect(links.value == (try await database.externalAuths(userID: alice)))

        // Disabled: said, so the caller refuses. Past its end, or unknown: nothing.
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE users SET disabled = 1 WHERE id = ?", arguments: [alice.rawValue])
        }
        #expect(try await database.activeSessionTOTPStatus(tokenHash: "t", now: now)?.disabled == true)
        #expect(try await database.activeSessionExternalAuths(tokenHash: "t", now: now)?.disabled == true)
        #expect(try await database.activeSessionTOTPStatus(tokenHash: "t", now: now.addingTimeInterval(3600)) == nil)
        #expect(try await database.activeSessionExternalAuths(tokenHash: "t", now: now.addingTimeInterval(3600)) == nil)
        #expect(try await database.activeSessionExternalAuths(tokenHash: "other", now: now) == nil)
        #expect(try await database.totpStatus(userID: UserID("nobody000000000")) == nil)
    }

    @Test func concurrentReadersEachGetAConnection() async throws {
        _ = try await test.database.createSession(
            newSession("t", createdAt: now, expiresAt: now.addingTimeInterval(3600)))
        let database = test.database
        let found = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var found = 0
                    for _ in 0..<200 where (try? await database.activeSession(tokenHash: "t", now: self.now)) != nil {
                        found += 1
                    }
                    return found
                }
            }
            return await group.reduce(0, +)
        }
        #expect(found == 1_600)
    }
}
