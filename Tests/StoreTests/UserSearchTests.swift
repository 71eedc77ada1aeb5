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
                UserRecord(id: UserID("user\(index)"), email: "u\(index)@example.com", passwordHash: nil, verified: true,
                           profile: Profile(["name": .string(text)]), createdAt: now, updatedAt: now),
                verificationToken: nil)
        }
        let needle = String(name.dropFirst(1).prefix(6))
        let page = try await store.database.listUsers(UserQuery(search: needle))
        #expect(page.users.map(\.id) == [UserID("user0")], "search for \(needle)")
        #expect(page.totalItems == 1)
    }
}
