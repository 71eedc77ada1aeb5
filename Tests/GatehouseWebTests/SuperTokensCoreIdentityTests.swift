import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The core's identity calls the Rownd plugin and the SDK's account linking make: no id mappings,
/// every account already primary, a code-made account shown with its passwordless login method,
/// and a removed user is a deleted account.
@Suite(.stopsWhatItStarts) struct SuperTokensCoreIdentityTests {
    private func core(_ gatehouse: TestGatehouse, _ method: String, _ path: String, _ body: [String: Any]? = nil)
        async throws -> (status: Int, json: [String: Any])
    {
        try await SuperTokensCoreLookupTests.core(gatehouse, method, path, body)
    }

    /// Gatehouse maps no external ids: every lookup is `UNKNOWN_MAPPING_ERROR`; a bad type is the core's 400.
    @Test func userIDMappingsAreNeverFound() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let lookup = try await core(gatehouse, "GET", "/recipe/userid/map?userId=abc&userIdType=ANY")
        #expect(lookup.json["status"] as? String == "UNKNOWN_MAPPING_ERROR", "\(lookup.json)")
        #expect(try await core(gatehouse, "GET", "/recipe/userid/map?userId=abc&userIdType=NAME").status == 400)
        #expect(try await core(gatehouse, "GET", "/recipe/userid/map").status == 400)
    }

    /// An account made by a mailed code has no password: the core shows its `passwordless` login
    /// method (by id and by address), and making it primary answers it already is.
    @Test func aCodeMadeAccountIsPasswordlessAndAlreadyPrimary() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        let device = try await SuperTokensFDIPasswordlessTests.startCode(app, "hal@example.com")
        let consumed = try await SuperTokensFDIPasswordlessTests.consume(
            app, device, try await gatehouse.latestCode(for: "hal@example.com"))
        let id = try #require((consumed["user"] as? [String: Any])?["id"] as? String, "\(consumed)")
        let byID = try await core(gatehouse, "GET", "/user/id?userId=\(id)")
        #expect(Self.recipe(byID.json["user"]) == "passwordless", "\(byID.json)")
        let byAddress = try await core(gatehouse, "GET", "/users/by-accountinfo?email=hal@example.com")
        #expect(Self.recipe((byAddress.json["users"] as? [Any])?.first) == "passwordless", "\(byAddress.json)")
        let primary = try await core(gatehouse, "POST", "/recipe/accountlinking/user/primary", ["recipeUserId": id])
        #expect(primary.json["wasAlreadyAPrimaryUser"] as? Bool == true, "\(primary.json)")
        #expect(
            try await core(gatehouse, "POST", "/recipe/accountlinking/user/primary", ["recipeUserId": "nobody"]).status == 400)
        _ = try await RowndPluginTests.signedUp(gatehouse, "ida@example.com")
        let emailPassword = try await core(gatehouse, "GET", "/users/by-accountinfo?email=ida@example.com")
        #expect(Self.recipe((emailPassword.json["users"] as? [Any])?.first) == "emailpassword")
    }

    /// `user/remove` deletes the account: its sessions end and its address signs in no more.
    @Test func removingAUserDeletesTheAccount() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (app, id) = try await RowndPluginTests.signedUp(gatehouse, "jan@example.com")
        let removed = try await core(gatehouse, "POST", "/user/remove", ["userId": id, "removeAllLinkedAccounts": true])
        #expect(removed.json["status"] as? String == "OK", "\(removed.json)")
        #expect(try await core(gatehouse, "GET", "/user/id?userId=\(id)").json["status"] as? String == "UNKNOWN_USER_ID_ERROR")
        #expect(try await app.refresh().status == 401)
        #expect(try await core(gatehouse, "POST", "/user/remove", ["userId": id]).json["status"] as? String == "OK")
    }

    private static func recipe(_ user: Any?) -> String? {
        ((user as? [String: Any])?["loginMethods"] as? [[String: Any]])?.first?["recipeId"] as? String
    }
}
