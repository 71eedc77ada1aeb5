import AuthCore
import Foundation
import Store
import Testing

/// The console's user search over names, whichever way the name is written in the profile JSON.
@Suite struct UserSearchTests {
    @Test(arguments: ["Ada Lovelace", "ada/lovelace", "Ada \"the Countess\"", "Adélaïde"])
    func findsAUserByPartOfTheirName(name: String) async throws {
        let store = try TestDatabase()
        let now = Date()
        for (index, text) in [name, "Someone Else"].enumerated() {
            _ = try await store.database.insertUser(
                UserRecord(
                    id: UserID("user\(index)"), email: "u\(index)@example.com", passwordHash: nil, verified: true,
                    profile: Profile(["name": .string(text)]), createdAt: now, updatedAt: now),
                verificationToken: nil)
        }
        let needle = String(name.dropFirst(1).prefix(6))
        let page = try await store.database.listUsers(UserQuery(search: needle))
        #expect(page.users.map(\.id) == [UserID("user0")], "search for \(needle)")
        #expect(page.totalItems == 1)
    }
}

/// The trigram index follows every change to an account, and short or wildcard searches still work.
@Suite struct UserSearchIndexTests {
    private func insert(_ store: TestDatabase, _ id: String, _ email: String, name: String) async throws {
        let now = Date()
        _ = try await store.database.insertUser(
            UserRecord(
                id: UserID(id), email: email, passwordHash: nil, verified: true,
                profile: Profile(["name": .string(name)]), createdAt: now, updatedAt: now),
            verificationToken: nil)
    }

    private func search(_ store: TestDatabase, _ text: String) async throws -> [String] {
        try await store.database.listUsers(UserQuery(search: text)).users.map(\.id.rawValue).sorted()
    }

    @Test func indexFollowsRenamesAndDeletes() async throws {
        let store = try TestDatabase()
        try await insert(store, "alpha", "grace@example.com", name: "Grace Hopper")
        try await insert(store, "beta", "alan@example.com", name: "Alan Turing")
        #expect(try await search(store, "hopper") == ["alpha"])
        _ = try await store.database.updateUser(id: UserID("alpha")) { user in
            user.email = "admiral@example.com"
            user.emailNormalized = "admiral@example.com"
            user.profile = Profile(["name": .string("Rear Admiral")])
        }
        #expect(try await search(store, "hopper").isEmpty)
        #expect(try await search(store, "admiral") == ["alpha"])
        try await store.database.deleteUser(id: UserID("alpha"), at: Date())
        #expect(try await search(store, "admiral").isEmpty)
        #expect(try await search(store, "TURING") == ["beta"], "any letter case")
    }

    @Test func shortAndWildcardSearchesScanInstead() async throws {
        let store = try TestDatabase()
        try await insert(store, "one", "a_b@example.com", name: "Underscore")
        try await insert(store, "two", "axb@example.com", name: "Ex")
        #expect(try await search(store, "a_b") == ["one"], "an underscore is a literal, not a wildcard")
        #expect(try await search(store, "ex") == ["one", "two"], "two letters still search")
        #expect(try await search(store, "two") == ["two"], "an exact id matches")
    }
}
