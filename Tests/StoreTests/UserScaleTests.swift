import AuthCore
import Foundation
import Store
import Testing

/// The list and search at scale (issue 13): a broad term pages and counts without gathering every
/// match, and shows the same users a narrow one would; the kept user count follows every insert and
/// delete; a bulk insert is all or none.
@Suite struct UserScaleTests {
    /// `count` accounts `user+N@example.com`, N from 1, created one second apart (newest last).
    private func seed(_ store: TestDatabase, _ count: Int, pattern: String = "user+%d@example.com") async throws -> [UserID] {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        return try await store.database.insertUsers(
            count: count,
            record: { n in
                let at = start.addingTimeInterval(Double(n))
                return UserRecord(
                    id: UserID(String(format: "id%05d", n)), email: String(format: pattern, n), passwordHash: nil,
                    verified: n % 2 == 0, profile: Profile(["name": .string("Person \(n)")]), createdAt: at, updatedAt: at)
            })
    }

    @Test func aBroadSearchPagesNewestFirstAndCountsUpToTheLimit() async throws {
        let store = try TestDatabase()
        let count = AppDatabase.narrowSearchLimit + 200
        _ = try await seed(store, count)
        var query = UserQuery(search: "example.com", perPage: 50)
        query.countLimit = 500
        let page = try await store.database.listUsers(query)
        #expect(page.users.map(\.email) == (0..<50).map { "user+\(count - $0)@example.com" })
        #expect(page.totalItems == 500 && page.totalIsLowerBound)

        // Without a limit (PocketBase's API must report it), the exact count.
        let exact = try await store.database.listUsers(UserQuery(search: "example.com", perPage: 50))
        #expect(exact.totalItems == count && !exact.totalIsLowerBound)

        // The next page by cursor continues where the first ended, with the same rule.
        query.cursor = page.nextCursor
        let next = try await store.database.listUsers(query)
        #expect(next.users.first?.email == "user+\(count - 50)@example.com")

        // Names match the same way (the index's text is the email and the name).
        let named = try await store.database.listUsers(UserQuery(search: "person 1", perPage: 5))
        #expect(named.users.map(\.email) == (1196...1200).reversed().map { "user+\($0)@example.com" })
        // A broad term with another filter: only the verified, still newest first.
        var verified = UserQuery(search: "example.com", perPage: 3, verified: true)
        verified.countLimit = 10
        let even = try await store.database.listUsers(verified)
        #expect(even.users.map(\.email) == ["user+1200@example.com", "user+1198@example.com", "user+1196@example.com"])
        #expect(even.totalItems == 10 && even.totalIsLowerBound)
    }

    @Test func aNarrowSearchCountsExactlyEvenWithALimit() async throws {
        let store = try TestDatabase()
        _ = try await seed(store, AppDatabase.narrowSearchLimit + 200)
        var query = UserQuery(search: "user+42@", perPage: 50)
        query.countLimit = 500
        let page = try await store.database.listUsers(query)
        #expect(page.users.map(\.email) == ["user+42@example.com"])
        #expect(page.totalItems == 1 && !page.totalIsLowerBound)
        let byID = try await store.database.listUsers(UserQuery(search: "id00042"))
        #expect(byID.users.map(\.email) == ["user+42@example.com"], "the whole id finds its user")
    }

    @Test func theUnfilteredTotalFollowsInsertsAndDeletes() async throws {
        let store = try TestDatabase()
        let ids = try await seed(store, 120)
        #expect(try await store.database.listUsers(UserQuery()).totalItems == 120)
        _ = try await store.database.deleteUsers(ids: Array(ids.prefix(20)), at: Date())
        try await store.database.deleteUser(id: ids[50], at: Date())
        #expect(try await store.database.listUsers(UserQuery()).totalItems == 99)
        #expect(try await store.database.deleteAllUsers(at: Date()) == 99)
        #expect(try await store.database.listUsers(UserQuery()).totalItems == 0)
        #expect(try await store.database.listUsers(UserQuery(search: "example.com")).users.isEmpty, "the index is empty too")
        _ = try await seed(store, 3)
        #expect(try await store.database.listUsers(UserQuery()).totalItems == 3)
    }

    @Test func aBulkInsertWithATakenAddressWritesNothingAndNamesIt() async throws {
        let store = try TestDatabase()
        _ = try await seed(store, 3, pattern: "taken+%d@example.com")
        await #expect(throws: StoreError.emailsTaken(["taken+2@example.com", "taken+3@example.com"])) {
            _ = try await store.database.insertUsers(
                count: 5,
                record: { n in
                    let email = n <= 3 ? "taken+\(n + 1)@example.com" : "free+\(n)@example.com"
                    return UserRecord(
                        id: UserID("new\(n)"), email: email, passwordHash: nil, verified: false, profile: Profile(),
                        createdAt: Date(), updatedAt: Date())
                })
        }
        #expect(try await store.database.listUsers(UserQuery()).totalItems == 3)
        #expect(try await store.database.listUsers(UserQuery(search: "free+")).users.isEmpty)
    }

    @Test func aPageOfUsersHasItsProviderLinksReadInOneCall() async throws {
        let store = try TestDatabase()
        let ids = try await seed(store, 3)
        for (provider, subject) in [("github", "gh-1"), ("google", "g-1")] {
            _ = try await store.database.linkExternal(
                ExternalIdentity(provider: provider, subject: subject, email: nil, emailVerified: false), to: ids[0],
                at: Date())
        }
        _ = try await store.database.linkExternal(
            ExternalIdentity(provider: "github", subject: "gh-3", email: nil, emailVerified: false), to: ids[2], at: Date())
        let links = try await store.database.externalAuths(userIDs: ids)
        #expect(links[ids[0]]?.map(\.provider) == ["github", "google"])
        #expect(links[ids[1]] == nil)
        #expect(links[ids[2]]?.map(\.providerID) == ["gh-3"])
    }
}
