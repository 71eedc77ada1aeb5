import AuthCore
import Foundation
import HTTPTestClient
import PocketBaseTestSupport
import TestScope
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The staff console in proxy mode: the same pages list, search, edit, verify, impersonate,
/// unlink and delete accounts on a real PocketBase binary, and PocketBase's own API sees it.
@Suite(.stopsWhatItStarts) struct ConsoleProxyModeTests {
    private static let superuser = (PocketBaseServer.superuserEmail, PocketBaseServer.superuserPassword)

    /// Creates an account through PocketBase's own API and returns its id.
    private func createOnPocketBase(_ pocketBase: PocketBaseServer, email: String, name: String, verified: Bool) async throws
        -> String
    {
        let token = try await pocketBase.superuserToken()
        let record = try await pocketBase.request(
            "POST", "/api/collections/users/records", token: token,
            body: [
                "email": email, "password": "quiet-otter-1234", "passwordConfirm": "quiet-otter-1234", "verified": verified,
                "name": name
            ])
        return try #require(record["id"] as? String)
    }

    /// The HTTP status PocketBase answers `method path` with, and its JSON body.
    private func call(
        _ pocketBase: PocketBaseServer, _ method: String, _ path: String,
        token: String
    ) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: pocketBase.baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue(token, forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, json)
    }

    @Test func listSearchEditVerifyImpersonateUnlinkAndDeleteOnARealPocketBase() async throws {
        try await ProxyGatehouse.run(superuser: Self.superuser) { pocketBase, gatehouse in
            let suffix = UUID().uuidString.prefix(6).lowercased()
            let aliceEmail = "alice-\(suffix)@example.com"
            let bobEmail = "bob-\(suffix)@example.com"
            let alice = try await createOnPocketBase(pocketBase, email: aliceEmail, name: "Alice Proxy", verified: false)
            _ = try await createOnPocketBase(pocketBase, email: bobEmail, name: "Bob Proxy", verified: true)
            _ = try await gatehouse.remote.admin.linkExternalAuth(
                userID: UserID(alice), provider: "github", providerID: "gh-4242")
            let staff = try await gatehouse.staffBrowser()
            let superToken = try await pocketBase.superuserToken()

            // List and search.
            let list = try await staff.get("/_/users")
            #expect(list.status == 200)
            #expect(list.text.contains(aliceEmail))
            #expect(list.text.contains(bobEmail))
            let search = try await staff.get("/_/users?q=alice-\(suffix)")
            #expect(search.status == 200)
            #expect(search.text.contains(aliceEmail))
            #expect(!search.text.contains(bobEmail))
            let linked = try await staff.get("/_/users?provider=yes")
            #expect(linked.text.contains(aliceEmail), "the linked-account filter reads PocketBase's _externalAuths")
            #expect(!linked.text.contains(bobEmail))
            let verifiedOnly = try await staff.get("/_/users?verified=yes")
            #expect(verifiedOnly.text.contains(bobEmail))
            #expect(!verifiedOnly.text.contains(aliceEmail))

            // The user page shows the account and its PocketBase link.
            let page = try await staff.get("/_/users/\(alice)")
            #expect(page.status == 200)
            #expect(page.text.contains(aliceEmail))
            #expect(page.text.contains("gh-4242"))

            // Profile edit lands in PocketBase's record.
            let saved = try await staff.post(
                "/_/users/\(alice)/profile",
                [
                    ("name", "Alice Edited"), ("bio", "Edited from the console."), ("avatar_url", ""),
                    ("custom_key_0", "team"), ("custom_value_0", "support")
                ])
            #expect(saved.header("Location") == "/_/users/\(alice)?notice=user-saved")
            var record = try await pocketBase.request("GET", "/api/collections/users/records/\(alice)", token: superToken)
            #expect(record["name"] as? String == "Alice Edited")
            let profile = record["profile"] as? [String: Any]
            #expect(profile?["bio"] as? String == "Edited from the console.")
            #expect(profile?["team"] as? String == "support")

            // Verify toggle sets PocketBase's `verified`.
            #expect(record["verified"] as? Bool == false)
            let verified = try await staff.post("/_/users/\(alice)/verify", [("verified", "true")])
            #expect(verified.header("Location") == "/_/users/\(alice)?notice=verified-set")
            record = try await pocketBase.request("GET", "/api/collections/users/records/\(alice)", token: superToken)
            #expect(record["verified"] as? Bool == true)
            // PocketBase drops an account's external auths when it becomes verified (a guard against
            // pre-linked takeovers); the page shows what PocketBase keeps, so link again for the unlink step.
            #expect(!(try await staff.get("/_/users/\(alice)").text.contains("gh-4242")))
            _ = try await gatehouse.remote.admin.linkExternalAuth(
                userID: UserID(alice), provider: "github", providerID: "gh-4242")
            #expect(try await staff.get("/_/users/\(alice)").text.contains("gh-4242"))

            // PocketBase has no disabled accounts: the page says so instead of failing.
            let withoutDisable = try await staff.get("/_/users/\(alice)")
            #expect(withoutDisable.text.contains("Disabling accounts is not supported"))
            #expect(!withoutDisable.text.contains("action=\"/_/users/\(alice)/disable\""), "no button that cannot work")
            let disable = try await staff.post("/_/users/\(alice)/disable", [("disabled", "true")])
            #expect(disable.status == 422)
            #expect(disable.text.contains("Disabling accounts is not supported"))

            // Browser impersonation: /account shows the user and the banner, through PocketBase's token.
            let started = try await staff.post("/_/users/\(alice)/impersonate", [("duration", "5"), ("mode", "browser")])
            #expect(started.header("Location") == "/account")
            let account = try await staff.get("/account")
            #expect(account.status == 200)
            #expect(account.text.contains("Alice Edited"))
            #expect(account.text.contains("Viewing as"))
            #expect(account.text.contains("staff@example.com"))
            let stopped = try await staff.post("/_/impersonation/stop", [])
            #expect(stopped.header("Location") == "/_/users/\(alice)?notice=impersonation-stopped")
            #expect(try await staff.get("/account", follow: false).status == 303)

            // Token impersonation: PocketBase's token reads the record and cannot be refreshed.
            let tokenPage = try await staff.post("/_/users/\(alice)/impersonate", [("duration", "5"), ("mode", "token")])
            #expect(tokenPage.status == 200)
            let token = try #require(
                tokenPage.text.firstMatch(of: /id="issued-token" type="text" readonly value="([^"]+)"/)
                    .map { String($0.1) })
            let read = try await call(pocketBase, "GET", "/api/collections/users/records/\(alice)", token: token)
            #expect(read.status == 200)
            #expect(read.json["email"] as? String == aliceEmail)
            let refresh = try await call(pocketBase, "POST", "/api/collections/users/auth-refresh", token: token)
            // PocketBase 0.40 answers a non-refreshable token with the same token, unrenewed; older ones refuse.
            #expect(
                refresh.status >= 400 || refresh.json["token"] as? String == token,
                "PocketBase impersonation tokens are not refreshable")

            // Unlink removes the `_externalAuths` record.
            let unlinked = try await staff.post("/_/users/\(alice)/external-auths/github/unlink", [])
            #expect(unlinked.header("Location") == "/_/users/\(alice)?notice=provider-removed")
            let filter = "recordRef='\(alice)'".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let links = try await pocketBase.request(
                "GET", "/api/collections/_externalAuths/records?filter=\(filter)", token: superToken)
            #expect((links["items"] as? [Any])?.isEmpty == true)
            #expect(!(try await staff.get("/_/users/\(alice)").text.contains("gh-4242")))

            // Delete removes the record from PocketBase.
            let deleted = try await staff.post("/_/users/\(alice)/delete", [("confirm", aliceEmail)])
            #expect(deleted.header("Location") == "/_/users?notice=user-deleted")
            let gone = try await call(pocketBase, "GET", "/api/collections/users/records/\(alice)", token: superToken)
            #expect(gone.status == 404)
            #expect(try await staff.get("/_/users/\(alice)").status == 404)

            let audit = try await staff.get("/_/audit?user=\(alice)")
            for type in [
                "profile.updated", "admin.user.verified", "impersonation.started", "external_auth.unlinked", "admin.user.deleted"
            ] {
                #expect(audit.text.contains(type), "audit has \(type)")
            }
        }
    }

    @Test func theJSONAdminAPICreatesPatchesAndImpersonatesOnARealPocketBase() async throws {
        try await ProxyGatehouse.run(superuser: Self.superuser) { pocketBase, gatehouse in
            let token = try await gatehouse.adminToken()
            let client = HTTPTestClient(port: gatehouse.port)
            let auth = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
            let email = "api-\(UUID().uuidString.prefix(6).lowercased())@example.com"
            let created = try await client.request(
                "POST", "/_/api/users", headers: auth,
                body: Array(
                    #"{"email":"\#(email)","password":"quiet-otter-1234","name":"Api Person","verified":true}"#.utf8))
            #expect(created.status == 201)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
            let id = try #require((json["user"] as? [String: Any])?["id"] as? String)
            let record = try await pocketBase.request(
                "GET", "/api/collections/users/records/\(id)",
                token: try await pocketBase.superuserToken())
            #expect(record["email"] as? String == email, "the account lives on PocketBase")

            let search = try await client.request("GET", "/_/api/users?search=\(email.prefix(10))", headers: auth)
            #expect(search.status == 200)
            #expect(search.text.contains(email))
            let disable = try await client.request(
                "PATCH", "/_/api/users/\(id)", headers: auth, body: Array(#"{"disabled":true}"#.utf8))
            #expect(disable.status == 501, "PocketBase has no disabled accounts")

            // The one-time link opens a browser session backed by PocketBase's impersonation token.
            let issued = try await client.request(
                "POST", "/_/api/users/\(id)/impersonate", headers: auth,
                body: Array(#"{"duration": 300}"#.utf8))
            #expect(issued.status == 200)
            let ticket = try #require(try JSONSerialization.jsonObject(with: Data(issued.body)) as? [String: Any])
            let url = try #require(ticket["url"] as? String)
            let browser = Browser(port: gatehouse.port)
            let account = try await browser.get(url)
            #expect(account.text.contains("Api Person"))
            #expect(account.text.contains("Viewing as"))

            #expect(try await client.request("DELETE", "/_/api/users/\(id)", headers: auth).status == 204)
            #expect(try await client.request("GET", "/_/api/users/\(id)", headers: auth).status == 404)
        }
    }
}
