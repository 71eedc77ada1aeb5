import AuthCore
import Foundation
import GRDB
import Testing

@testable import Store

/// The console's users list: numbered pages, a sort per column (each walking an index), exact
/// matches first.
@Suite struct UserListSortTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// `count` users `test+N@example.com`, created a minute apart in order of N.
    private func seed(
        _ store: TestDatabase, _ emails: [String], names: [String?] = [], disabled: Set<Int> = [],
        unverified: Set<Int> = []
    ) async throws {
        for (index, email) in emails.enumerated() {
            let created = start.addingTimeInterval(Double(index) * 60)
            var profile = Profile()
            if index < names.count, let name = names[index] { profile = Profile(["name": .string(name)]) }
            _ = try await store.database.insertUser(
                UserRecord(
                    id: UserID("u\(index)"), email: email, passwordHash: nil, verified: !unverified.contains(index),
                    profile: profile, disabled: disabled.contains(index), createdAt: created, updatedAt: created),
                verificationToken: nil)
        }
    }

    private func emails(_ page: UserPage) -> [String] { page.users.map(\.email) }

    @Test func anExactAddressOrLocalPartComesFirst() async throws {
        let store = try TestDatabase()
        // test+420…429 first (created earlier), test+42 last: newest-first would list it first anyway,
        // so sort by email, where test+42@ sorts after test+420@ ("@" > "0").
        try await seed(store, (420...429).map { "test+\($0)@example.com" } + ["test+42@example.com"])
        var query = UserQuery(search: "test+42", perPage: 5, sort: .emailAscending)
        var page = try await store.database.listUsers(query)
        #expect(emails(page).first == "test+420@example.com", "only when asked for")
        query.exactFirst = true
        page = try await store.database.listUsers(query)
        #expect(emails(page).first == "test+42@example.com")
        #expect(page.totalItems == 11)
        query.search = "TEST+42@example.com"
        page = try await store.database.listUsers(query)
        #expect(emails(page) == ["test+42@example.com"], "a whole address matches itself only, any case")
        query.search = "u3"
        page = try await store.database.listUsers(query)
        #expect(page.users.first?.id == UserID("u3"), "an exact id first")
        // Page 2 continues after the exact match without repeating it.
        query = UserQuery(search: "test+42", page: 2, perPage: 5, sort: .emailAscending)
        query.exactFirst = true
        page = try await store.database.listUsers(query)
        #expect(emails(page) == (424...428).map { "test+\($0)@example.com" })
    }

    @Test func pagesByNumberWithAnExactTotal() async throws {
        let store = try TestDatabase()
        try await seed(store, (0..<120).map { "p\($0)@example.com" })
        let page = try await store.database.listUsers(UserQuery(page: 3, perPage: 50, sort: .oldest))
        #expect(page.users.count == 20)
        #expect(page.users.first?.email == "p100@example.com")
        #expect(page.totalItems == 120 && !page.totalIsLowerBound)
        let newest = try await store.database.listUsers(UserQuery(page: 2, perPage: 50, sort: .newest))
        #expect(newest.users.first?.email == "p69@example.com")
        // Pages in the back half are read from the other end: the same rows, in the same order.
        for sort in [UserSort.newest, .emailDescending, .nameAscending, .statusDescending] {
            let all = try await store.database.listUsers(UserQuery(perPage: 120, sort: sort)).users
            var paged: [User] = []
            for number in 1...9 {
                paged += try await store.database.listUsers(UserQuery(page: number, perPage: 14, sort: sort)).users
            }
            #expect(paged == all, "\(sort)")
        }
    }

    @Test func sortsByNameAndStatus() async throws {
        let store = try TestDatabase()
        try await seed(
            store, ["a@example.com", "b@example.com", "c@example.com", "d@example.com"],
            names: ["zoe", "Adam", "mia", nil], disabled: [2], unverified: [1])
        let byName = try await store.database.listUsers(UserQuery(sort: .nameAscending))
        #expect(byName.users.map(\.id.rawValue) == ["u3", "u1", "u2", "u0"], "any case; no name sorts first")
        let byNameDown = try await store.database.listUsers(UserQuery(sort: .nameDescending))
        #expect(byNameDown.users.map(\.id.rawValue) == ["u0", "u2", "u1", "u3"])
        let byStatus = try await store.database.listUsers(UserQuery(sort: .statusAscending))
        #expect(byStatus.users.map(\.id.rawValue) == ["u3", "u0", "u1", "u2"], "verified (newest first), unverified, disabled")
        let byStatusDown = try await store.database.listUsers(UserQuery(sort: .statusDescending))
        #expect(byStatusDown.users.map(\.id.rawValue) == ["u2", "u1", "u0", "u3"])
    }

    @Test func sortsByLastSignInAcrossPages() async throws {
        let store = try TestDatabase()
        try await seed(store, ["a@example.com", "b@example.com", "c@example.com", "d@example.com"])
        for (user, minutes) in [("u0", 100.0), ("u2", 200.0), ("u0", 50.0)] {
            _ = try await store.database.createSession(
                NewSession(
                    tokenHash: UUID().uuidString, userID: UserID(user), userAgent: nil, ip: nil,
                    createdAt: start.addingTimeInterval(minutes * 60), expiresAt: start.addingTimeInterval(1e6)))
        }
        // An impersonation is not the person's sign-in.
        _ = try await store.database.createSession(
            NewSession(
                tokenHash: UUID().uuidString, userID: UserID("u1"), userAgent: nil, ip: nil,
                createdAt: start.addingTimeInterval(500 * 60), expiresAt: start.addingTimeInterval(1e6), impersonator: "staff"))
        let newest = try await store.database.listUsers(UserQuery(sort: .lastSignInNewest))
        #expect(newest.users.map(\.id.rawValue) == ["u2", "u0", "u3", "u1"], "then never (newest created first)")
        let oldest = try await store.database.listUsers(UserQuery(sort: .lastSignInOldest))
        #expect(oldest.users.map(\.id.rawValue) == ["u1", "u3", "u0", "u2"])
        var paged: [String] = []
        for number in 1...4 {
            let page = try await store.database.listUsers(UserQuery(page: number, perPage: 1, sort: .lastSignInNewest))
            paged += page.users.map(\.id.rawValue)
        }
        #expect(paged == ["u2", "u0", "u3", "u1"], "one at a time across both parts")
        let last = try await store.database.lastSignIns(of: [UserID("u0"), UserID("u1")])
        #expect(last[UserID("u0")] == start.addingTimeInterval(100 * 60), "the latest sign-in, not the last row")
        #expect(last[UserID("u1")] == nil)
    }

    /// Every sort walks an index: no temporary B-tree to sort a million rows for one page.
    @Test(arguments: UserSort.allCases.filter { $0 != .lastSignInNewest && $0 != .lastSignInOldest })
    func eachSortWalksAnIndex(sort: UserSort) async throws {
        let store = try TestDatabase()
        let plan = try await store.database.pool.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT * FROM users WHERE 1 ORDER BY \(UserListOrder(sort).orderBy) LIMIT 51"
            ).map { $0["detail"] as String? ?? "" }.joined(separator: "\n")
        }
        #expect(!plan.contains("TEMP B-TREE"), "\(sort): \(plan)")
    }
}
