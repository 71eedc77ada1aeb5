import AuthCore
import Foundation
import Testing

@testable import Store

/// The console's users list filtered by a test-user tag, read through `user_tags` in the list's own
/// query: with every other filter, sort, count and paging, as the untagged list.
@Suite struct UserListTagTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// 120 users `t{N}@example.com`, created a minute apart; the even ones tagged `trip`, every
    /// tenth `other` too; users 0–9 unverified.
    private func seeded() async throws -> TestDatabase {
        let store = try TestDatabase()
        for index in 0..<120 {
            let created = start.addingTimeInterval(Double(index) * 60)
            _ = try await store.database.insertUser(
                UserRecord(
                    id: UserID("u\(String(format: "%03d", index))"), email: "t\(index)@example.com", passwordHash: nil,
                    verified: index >= 10, profile: Profile(), createdAt: created, updatedAt: created),
                verificationToken: nil)
        }
        let ids = (0..<120).map { UserID("u\(String(format: "%03d", $0))") }
        try await store.database.addTag("trip", to: stride(from: 0, to: 120, by: 2).map { ids[$0] }, at: start)
        try await store.database.addTag("other", to: stride(from: 0, to: 120, by: 10).map { ids[$0] }, at: start)
        return store
    }

    private func numbers(_ page: UserPage) -> [Int] {
        page.users.map { Int($0.email.dropFirst().prefix { $0 != "@" })! }
    }

    @Test func onlyTheTaggedAccountsAreListedWithAnExactTotal() async throws {
        let store = try await seeded()
        let page = try await store.database.listUsers(UserQuery(perPage: 50, sort: .oldest), taggedWith: "trip")
        #expect(numbers(page) == Array(stride(from: 0, to: 100, by: 2)))
        #expect(page.totalItems == 60 && !page.totalIsLowerBound)
        // The cursor continues among the tagged ones only.
        var next = UserQuery(perPage: 50, sort: .oldest)
        next.cursor = page.nextCursor
        #expect(numbers(try await store.database.listUsers(next, taggedWith: "trip")) == Array(stride(from: 100, to: 120, by: 2)))
        // A numbered page from the back half, newest first.
        let last = try await store.database.listUsers(UserQuery(page: 3, perPage: 25, sort: .newest), taggedWith: "trip")
        #expect(numbers(last) == Array(stride(from: 18, through: 0, by: -2)))
        let none = try await store.database.listUsers(UserQuery(), taggedWith: "nobody")
        #expect(none.users.isEmpty && none.totalItems == 0)
    }

    /// A common tag's page walks the sort's index probing each row; a rare one sorts the tagged rows
    /// (`tagWalkIsShort`). Both ways give the same pages, totals and cursors, for every sort.
    @Test(arguments: UserSort.allCases) func walkingTheSortsIndexAndSortingTheTagAgree(_ sort: UserSort) async throws {
        let store = try await seeded()
        for tag in ["trip", "other"] {
            for page in 1...4 {
                let query = UserQuery(page: page, perPage: 7, sort: sort)
                let walked = try await store.database.listUsers(query, taggedWith: tag, tagWalkLimit: .max)
                let sorted = try await store.database.listUsers(query, taggedWith: tag, tagWalkLimit: 0)
                #expect(numbers(walked) == numbers(sorted), "\(tag) page \(page)")
                #expect(walked.totalItems == sorted.totalItems && walked.nextCursor == sorted.nextCursor)
                #expect(walked.users.count == min(7, max(0, (tag == "trip" ? 60 : 12) - (page - 1) * 7)))
            }
        }
    }

    @Test func aCommonTagWalksAndARareOneOrADeepPageSorts() async throws {
        let store = try await seeded()
        try await store.database.addTag("rare", to: [UserID("u007")], at: start)
        let short = { (tag: String, reach: Double) in
            try await store.database.pool.read { db in
                try AppDatabase.tagWalkIsShort(tag, reach: reach, limit: 1000, db)
            }
        }
        #expect(try await short("trip", 50), "60 of 120 tagged: a page of 50 reads ~100 rows")
        #expect(try await !short("trip", 600), "page 12 would read ~1,200 rows")
        #expect(try await !short("rare", 50), "1 of 120: ~6,000 rows")
        #expect(try await !short("nobody", 50))
    }

    @Test func theTagCombinesWithSearchFiltersAndSorts() async throws {
        let store = try await seeded()
        // t1…, t10… t19, t100… t119 hold "t1"; the tagged (even) ones among them.
        var query = UserQuery(search: "t1", perPage: 100, sort: .emailAscending)
        query.countLimit = 1000
        let searched = try await store.database.listUsers(query, taggedWith: "trip")
        #expect(Set(numbers(searched)) == Set([10, 12, 14, 16, 18] + Array(stride(from: 100, to: 120, by: 2))))
        #expect(searched.totalItems == 15 && !searched.totalIsLowerBound)
        let unverified = try await store.database.listUsers(UserQuery(verified: false, sort: .oldest), taggedWith: "trip")
        #expect(numbers(unverified) == [0, 2, 4, 6, 8])
        let both = try await store.database.listUsers(UserQuery(perPage: 5, sort: .emailDescending), taggedWith: "other")
        #expect(numbers(both) == [90, 80, 70, 60, 50])
        #expect(both.totalItems == 12)
    }
}
