import AuthCore
import Foundation
import GRDBSQLite
import Testing

@testable import Store

/// `AppDatabase.releaseMemory` (what `gatehouse serve` calls once a burst is over) gives SQLite's
/// page caches back, and the database answers as before afterwards: every row, every revocation.
@Suite struct MemoryReleaseTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws { test = try TestDatabase() }

    /// 20,000 accounts with a long profile each: several MiB of pages, more than one cache holds.
    private func seed() async throws {
        let padding = String(repeating: "x", count: 400)
        _ = try await test.database.insertUsers(
            count: 20_000,
            record: { n in
                UserRecord(
                    id: UserID(String(format: "id%013d", n)), email: "user+\(n)@example.com", passwordHash: nil,
                    verified: true, profile: Profile(["bio": .string(padding)]), createdAt: now, updatedAt: now)
            })
    }

    /// Reads every row on the writer and on a reader, so both caches fill.
    private func readEverything() async throws -> Int {
        let written = try await test.database.pool.write { db in
            try Int.fetchOne(db, sql: "SELECT sum(length(profile)) FROM users") ?? 0
        }
        let read = try await test.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT sum(length(profile)) FROM users") ?? 0
        }
        #expect(written == read)
        return read
    }

    @Test func theCachesAreGivenBackAndEveryRowStillReads() async throws {
        try await seed()
        let total = try await readEverything()
        let filled = sqlite3_memory_used()
        await test.database.releaseMemory()
        let released = sqlite3_memory_used()
        // Two full caches are ~4 MiB; at least half of that must be gone.
        #expect(filled - released > 2_000_000, "SQLite heap \(filled) → \(released) bytes")
        #expect(try await readEverything() == total)
    }

    @Test func aSessionRevokedAfterTheReleaseIsRefused() async throws {
        let session = try await test.database.createSession(
            NewSession(
                tokenHash: "t", userID: UserID("alice0000000000"), userAgent: nil, ip: nil, createdAt: now,
                expiresAt: now.addingTimeInterval(3600)))
        #expect(try await test.database.activeSession(tokenHash: "t", now: now) != nil)
        await test.database.releaseMemory()
        #expect(try await test.database.activeSession(tokenHash: "t", now: now) != nil)
        try await test.database.revokeSession(id: session.id, at: now)
        #expect(try await test.database.activeSession(tokenHash: "t", now: now) == nil)
    }
}
