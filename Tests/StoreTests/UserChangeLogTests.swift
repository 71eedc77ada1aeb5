import AuthCore
import Foundation
import GRDB
import Testing

@testable import Store

/// The account-change log (`user_changes`): every write to `users`, whichever path made it, is
/// read back in order with the state it left; the bulk paths log too; the log stays bounded.
@Suite struct UserChangeLogTests {
    private func record(_ id: String, name: String) -> UserRecord {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        return UserRecord(
            id: UserID(id), email: "\(id)@example.com", passwordHash: "x", verified: false,
            profile: Profile(["name": .string(name)]), createdAt: at, updatedAt: at)
    }

    private func rename(_ store: TestDatabase, _ id: String, _ name: String) async throws {
        _ = try await store.database.updateUser(id: UserID(id)) { $0.profile = Profile(["name": .string(name)]) }
    }

    @Test func eachChangeComesBackInOrderWithTheStateItLeft() async throws {
        let store = try TestDatabase()
        let start = try await store.database.lastUserChange()
        _ = try await store.database.insertUser(record("ann", name: "Ann"), verificationToken: nil)
        try await rename(store, "ann", "Ann Two")
        try await rename(store, "ann", "Ann Three")
        try await store.database.deleteUser(id: UserID("ann"), at: Date())
        let (changes, through) = try await store.database.userChanges(after: start, limit: 100)
        #expect(changes.map(\.action) == [.create, .update, .update, .delete])
        #expect(changes.map(\.user.profile.name) == ["Ann", "Ann Two", "Ann Three", "Ann Three"])
        #expect(
            changes.allSatisfy { $0.user.email == "ann@example.com" && $0.user.createdAt == record("ann", name: "").createdAt })
        let last = try await store.database.lastUserChange()
        #expect(through == changes.last?.position.sequence && through == last)
        #expect(try await store.database.userChanges(after: through, limit: 100).changes.isEmpty)
        // A filter is evaluated on the state each change left, not on the row now (deleted).
        var query = UserQuery(ids: [UserID("ann")])
        query.filter = "name = 'Ann Two'"
        let second = try await store.database.user(changes[1].user, passes: query)
        let third = try await store.database.user(changes[2].user, passes: query)
        #expect(second && !third)
        query.ids = [UserID("someone-else")]
        let elsewhere = try await store.database.user(changes[1].user, passes: query)
        #expect(!elsewhere)
    }

    @Test func bulkInsertsAndDeletingEveryoneAreLogged() async throws {
        let store = try TestDatabase()
        let start = try await store.database.lastUserChange()
        let ids = try await store.database.insertUsers(count: 3, record: { record("bulk-\($0)", name: "Bulk \($0)") })
        let created = try await store.database.userChanges(after: start, limit: 100)
        #expect(created.changes.map(\.action) == [.create, .create, .create])
        #expect(created.changes.map(\.user.id) == ids)
        #expect(try await store.database.deleteAllUsers(at: Date()) == 3)
        let deleted = try await store.database.userChanges(after: created.through, limit: 100)
        #expect(deleted.changes.map(\.action) == [.delete, .delete, .delete])
        #expect(deleted.changes.map(\.user.profile.name) == ["Bulk 1", "Bulk 2", "Bulk 3"])
    }

    @Test func theLogKeepsOnlyTheNewestChanges() async throws {
        let store = try TestDatabase()
        func logged() async throws -> Int? {
            try await store.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM user_changes") }
        }
        // One bulk insert is one transaction: only the creates the log would keep are written.
        let kept = AppDatabase.keptUserChanges
        _ = try await store.database.insertUsers(count: kept + 2_500, record: { record("many-\($0)", name: "N") })
        #expect(try await logged() == kept)
        _ = try await store.database.insertUsers(count: 2_500, record: { record("more-\($0)", name: "N") })
        #expect(try await logged().map { $0 >= kept && $0 < kept + 1000 } == true)
        // A reader far behind resumes at the oldest change kept.
        let resumed = try await store.database.userChanges(after: 0, limit: 1)
        #expect(resumed.changes.first.map { $0.position.sequence > 1 } == true)
    }
}
