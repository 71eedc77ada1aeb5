import AuthCore
import Foundation
import GRDB
import Synchronization
import Testing

@testable import Store

/// A bulk insert (seed, import) keeps the search index and the user count itself, a batch at a
/// time, instead of through the per-row triggers (issue 13), and deleting every user (reset,
/// delete all) empties them at once: afterwards every reader sees what the per-row path would
/// have left, and the schema, the triggers and foreign keys are back for every later write.
@Suite struct BulkInsertIndexTests {
    /// Account `n` of a batch: `prefix+N@example.com`, named "`name` N", ids `prefix-N`.
    private func record(_ prefix: String, _ n: Int, name: String) -> UserRecord {
        let at = Date(timeIntervalSince1970: 1_800_000_000 + Double(n))
        return UserRecord(
            id: UserID("\(prefix)-\(n)"), email: "\(prefix)+\(n)@Example.com", passwordHash: nil, verified: false,
            profile: Profile(["name": .string("\(name) \(n)")]), createdAt: at, updatedAt: at)
    }

    private func bulkInsert(_ store: TestDatabase, _ prefix: String, count: Int, name: String) async throws -> [UserID] {
        try await store.database.insertUsers(count: count, record: { record(prefix, $0, name: name) })
    }

    private func insertOne(_ store: TestDatabase, _ user: UserRecord) async throws {
        _ = try await store.database.insertUser(user, verificationToken: nil)
    }

    private func search(_ store: TestDatabase, _ text: String) async throws -> UserPage {
        try await store.database.listUsers(UserQuery(search: text, perPage: 100))
    }

    private func total(_ store: TestDatabase) async throws -> Int {
        try await store.database.listUsers(UserQuery()).totalItems
    }

    /// Each user's indexed text (through its key), the kept count, and the triggers on `users`: all
    /// a reader or a later write depends on.
    private func indexState(_ store: TestDatabase) async throws -> (rows: [[String]], count: Int, triggers: [String]) {
        try await store.database.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT k.user_id, s.user_id, s.text FROM users_search_keys k
                    JOIN users_search s ON s.rowid = k.search_rowid ORDER BY k.user_id
                    """
            ).map { [$0[0], $0[1], $0[2]] as [String] }
            let count = try Int.fetchOne(db, sql: "SELECT n FROM user_count") ?? -1
            let triggers = try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'users' ORDER BY name")
            return (rows, count, triggers)
        }
    }

    /// FTS5's own check that its index matches its content, plus: one index row per user, no more.
    private func expectConsistentIndex(_ store: TestDatabase, users: Int) async throws {
        try await store.database.pool.write { db in
            try db.execute(sql: "INSERT INTO users_search (users_search) VALUES ('integrity-check')")
        }
        let counts = try await store.database.pool.read { db in
            [
                try Int.fetchOne(db, sql: "SELECT count(*) FROM users"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM users_search"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM users_search_keys")
            ]
        }
        #expect(counts == [users, users, users])
    }

    @Test func aBulkInsertIndexesAndCountsExactlyAsThePerRowTriggersDo() async throws {
        let perRow = try TestDatabase()
        let bulk = try TestDatabase()
        let existing = record("old", 1, name: "Earlier User")
        for store in [perRow, bulk] { try await insertOne(store, existing) }
        for n in 1...40 { try await insertOne(perRow, record("seed", n, name: "Seeded Person")) }
        _ = try await bulkInsert(bulk, "seed", count: 40, name: "Seeded Person")

        let expected = try await indexState(perRow)
        let actual = try await indexState(bulk)
        #expect(actual.rows == expected.rows)
        #expect(actual.rows.count == 41 && actual.rows[0] == ["old-1", "old-1", "old+1@example.com earlier user 1"])
        #expect(actual.count == 41 && expected.count == 41)
        #expect(actual.triggers == expected.triggers, "the triggers are back exactly as the migrations made them")
        // The nine of the index, the count and the change log, and the three that write webhook events.
        #expect(actual.triggers.count == 12)
        try await expectConsistentIndex(bulk, users: 41)
    }

    @Test func afterABulkInsertOfSeveralBatchesSearchCountAndLaterWritesAgree() async throws {
        let store = try TestDatabase()
        try await insertOne(store, record("old", 1, name: "Earlier User"))
        let count = AppDatabase.seedBatchSize + 25
        let progress = Progress()
        let ids = try await store.database.insertUsers(
            count: count, record: { record("seed", $0, name: "Seeded Person") }, progress: { progress.add($0) })
        #expect(progress.values == [AppDatabase.seedBatchSize, count], "the progress bar still moves per batch")
        try await expectConsistentIndex(store, users: count + 1)

        // Found by a fragment of the email, and of the name, in either batch; counted with the existing user.
        #expect(try await search(store, "seed+7@").users.map(\.id) == [UserID("seed-7")])
        #expect(try await search(store, "seed+10012@").users.map(\.id) == [UserID("seed-10012")])
        #expect(try await search(store, "person 10024").users.map(\.id) == [UserID("seed-10024")])
        #expect(try await search(store, "Earlier").users.map(\.id) == [UserID("old-1")])
        #expect(try await total(store) == count + 1)

        // A user created the ordinary way afterwards is indexed and counted by the restored triggers.
        try await insertOne(store, record("late", 1, name: "Latecomer"))
        #expect(try await search(store, "latecomer").users.map(\.id) == [UserID("late-1")])
        #expect(try await search(store, "late+1@").users.map(\.id) == [UserID("late-1")])
        #expect(try await total(store) == count + 2)

        // Deleting seeded users (one, and a few at once) takes them out of search and the count.
        try await store.database.deleteUser(id: ids[6], at: Date())
        #expect(try await search(store, "seed+7@").users.isEmpty)
        _ = try await store.database.deleteUsers(ids: Array(ids[10_000...10_002]), at: Date())
        #expect(try await search(store, "seed+10002@").users.isEmpty)
        #expect(try await total(store) == count - 2)

        // A seeded user renamed is found by the new name only (the update trigger finds its index row).
        _ = try await store.database.updateProfile(userID: ids[count - 1], at: Date()) { _ in
            Profile(["name": .string("Renamed")])
        }
        #expect(try await search(store, "renamed").users.map(\.id) == [UserID("seed-\(count)")])
        #expect(try await search(store, "person \(count)").users.isEmpty)
        try await expectConsistentIndex(store, users: count - 2)
    }

    @Test func aBulkInsertRefusedInItsSecondBatchLeavesIndexCountAndTriggersAsTheyWere() async throws {
        let store = try TestDatabase()
        try await insertOne(store, record("old", 1, name: "Earlier User"))
        let before = try await indexState(store)
        let count = AppDatabase.seedBatchSize + 5
        await #expect(throws: StoreError.emailsTaken(["old+1@Example.com"])) {
            // The first batch is written and indexed before the last row's address is refused.
            _ = try await store.database.insertUsers(
                count: count,
                record: { n in n == count ? self.record("old", 1, name: "Again") : self.record("new", n, name: "New") })
        }
        let after = try await indexState(store)
        #expect(after.rows == before.rows && after.count == 1 && after.triggers == before.triggers)
        #expect(try await search(store, "new+1@").users.isEmpty)
        try await insertOne(store, record("late", 1, name: "Latecomer"))
        #expect(try await search(store, "latecomer").users.map(\.id) == [UserID("late-1")])
        #expect(try await total(store) == 2)
        try await expectConsistentIndex(store, users: 2)
    }

    /// Every table, index and trigger as SQLite holds them.
    private func schema(_ store: TestDatabase) async throws -> [String] {
        try await store.database.pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY name")
        }
    }

    private func rowCount(_ store: TestDatabase, _ table: String) async throws -> Int {
        try await store.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }

    @Test func deletingEveryUserEmptiesWhatCascadesAndLeavesTheSchemaAndForeignKeysAsTheyWere() async throws {
        let store = try TestDatabase()
        let ids = try await bulkInsert(store, "seed", count: 30, name: "Seeded Person")
        try await insertOne(store, record("one", 1, name: "Single User"))
        for (n, id) in ids.prefix(3).enumerated() {
            _ = try await store.database.linkExternal(
                ExternalIdentity(provider: "github", subject: "gh-\(n)", email: nil, emailVerified: false), to: id, at: Date())
        }
        let before = try await schema(store)

        #expect(try await store.database.deleteAllUsers(at: Date()) == 31)

        #expect(try await schema(store) == before, "the search table and the suspended triggers are back as they were")
        for table in ["users", "users_search", "users_search_keys", "external_auths"] {
            #expect(try await rowCount(store, table) == 0, "\(table) is empty")
        }
        #expect(try await total(store) == 0)
        let keysOn = try await store.database.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        #expect(keysOn == 1, "the writer enforces foreign keys again")
        await #expect(throws: DatabaseError.self, "a row naming an account that is gone is refused") {
            try await store.database.pool.write { db in
                try db.execute(sql: "CREATE TABLE probe (user_id TEXT REFERENCES users(id))")
                try db.execute(sql: "INSERT INTO probe (user_id) VALUES (?)", arguments: [ids[0].rawValue])
            }
        }

        // Later writes index and count through the restored triggers.
        try await insertOne(store, record("late", 1, name: "Latecomer"))
        _ = try await bulkInsert(store, "again", count: 4, name: "Again")
        #expect(try await search(store, "latecomer").users.map(\.id) == [UserID("late-1")])
        try await store.database.deleteUser(id: UserID("again-2"), at: Date())
        #expect(try await total(store) == 4)
        try await expectConsistentIndex(store, users: 4)
    }

    @Test func deletingEveryUserWhileATableRefersToThemWithoutCascadeIsRefusedAndLosesNothing() async throws {
        let store = try TestDatabase()
        let ids = try await bulkInsert(store, "seed", count: 5, name: "Seeded Person")
        // A table whose rows must not vanish with their account: SQLite refuses the delete.
        try await store.database.pool.write { db in
            try db.execute(sql: "CREATE TABLE keepers (user_id TEXT NOT NULL REFERENCES users(id))")
            try db.execute(sql: "INSERT INTO keepers (user_id) VALUES (?)", arguments: [ids[1].rawValue])
        }
        let before = try await indexState(store)

        await #expect(throws: DatabaseError.self) { _ = try await store.database.deleteAllUsers(at: Date()) }

        let after = try await indexState(store)
        #expect(after.rows == before.rows && after.count == 5 && after.triggers == before.triggers)
        #expect(try await search(store, "seed+2@").users.map(\.id) == [ids[1]])
        try await expectConsistentIndex(store, users: 5)
    }
}

/// The values a `progress` callback heard, in order.
private final class Progress: Sendable {
    private let heard = Mutex<[Int]>([])

    func add(_ value: Int) { heard.withLock { $0.append(value) } }

    var values: [Int] { heard.withLock { $0 } }
}
