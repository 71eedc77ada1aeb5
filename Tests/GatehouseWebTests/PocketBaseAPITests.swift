import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Bad input on the PocketBase-compatible API (issue 11): every refusal is a 4xx in PocketBase's
/// `{status, message, data}` shape, never a 5xx, and nothing is half-written. The happy paths run
/// against the real PocketBase side by side in Tests/e2e/test_pocketbase_api.py.
@Suite(.stopsWhatItStarts) struct PocketBaseAPITests {
    private func call(
        _ gatehouse: TestGatehouse, _ method: String, _ path: String, raw: String? = nil, json: Any? = nil, token: String? = nil
    ) async throws -> TestResponse {
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        if let raw {
            body = Array(raw.utf8)
        } else if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
        }
        if raw != nil || json != nil { headers.append(("Content-Type", "application/json")) }
        if let token { headers.append(("Authorization", token)) }
        return try await HTTPTestClient(port: gatehouse.port).request(method, path, headers: headers, body: body)
    }

    private func expectPocketBaseError(
        _ response: TestResponse, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.json["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect((response.json["message"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(response.json["data"] is [String: Any], sourceLocation: sourceLocation)
    }

    /// A verified user and their PocketBase-API token.
    private func userToken(_ gatehouse: TestGatehouse, _ email: String) async throws -> String {
        let created = try await call(
            gatehouse, "POST", "/api/collections/users/records",
            json: ["email": email, "password": "quiet-otter-123", "passwordConfirm": "quiet-otter-123"])
        #expect(created.status == 200, "\(created.text)")
        let auth = try await call(
            gatehouse, "POST", "/api/collections/users/auth-with-password",
            json: ["identity": email, "password": "quiet-otter-123"])
        return try #require(auth.json["token"] as? String, "\(auth.text)")
    }

    @Test func malformedBodiesAndWrongTypesAre400sAndWriteNothing() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        expectPocketBaseError(try await call(gatehouse, "POST", "/api/collections/users/records", raw: "{\"email\":"), 400)
        expectPocketBaseError(try await call(gatehouse, "POST", "/api/collections/users/records", raw: "[1, 2]"), 400)
        let wrongTypes = try await call(
            gatehouse, "POST", "/api/collections/users/records", json: ["email": 42, "password": ["x"], "passwordConfirm": true])
        expectPocketBaseError(wrongTypes, 400)
        #expect((wrongTypes.json["data"] as? [String: Any])?["email"] != nil, "the field is named")
        let badEmail = try await call(
            gatehouse, "POST", "/api/collections/users/records",
            json: ["email": "not-an-address", "password": "quiet-otter-123", "passwordConfirm": "quiet-otter-123"])
        expectPocketBaseError(badEmail, 400)
        let badVisibility = try await call(
            gatehouse, "POST", "/api/collections/users/records",
            json: [
                "email": "v@example.com", "password": "quiet-otter-123", "passwordConfirm": "quiet-otter-123",
                "emailVisibility": "yes"
            ])
        expectPocketBaseError(badVisibility, 400)
        // Nothing was written by any of them: the addresses are still free.
        let token = try await userToken(gatehouse, "v@example.com")
        #expect(!token.isEmpty)
        let huge = String(repeating: "x", count: 300_000)
        let tooLong = try await call(
            gatehouse, "POST", "/api/collections/users/auth-with-password", json: ["identity": huge, "password": huge])
        #expect((400..<500).contains(tooLong.status), "\(tooLong.status)")
        await gatehouse.stop()
    }

    @Test func filtersThatCannotBeEvaluatedNameThePartAndInjectionStaysAValue() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let token = try await userToken(gatehouse, "f@example.com")
        for (filter, part) in [
            ("passwordHash = 'x'", "passwordHash"), ("email ?= 'x'", "?="), ("(id = 'x'", "expected"),
            ("@collection.users.id = 'x'", "@collection"), (String(repeating: "(", count: 40) + "id = 'x'", "deep")
        ] {
            let query = filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let refused = try await call(gatehouse, "GET", "/api/collections/users/records?filter=\(query)", token: token)
            expectPocketBaseError(refused, 400)
            #expect((refused.json["message"] as? String)?.contains(part) == true, "\(filter): \(refused.text)")
        }
        let injection = "id = \"x' OR 1=1 --\""
        let query = injection.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let none = try await call(gatehouse, "GET", "/api/collections/users/records?filter=\(query)", token: token)
        #expect(none.status == 200 && none.json["totalItems"] as? Int == 0, "the quote is a value, not SQL")
        let long = String(repeating: "id = 'x' || ", count: 400) + "id = 'x'"
        let longQuery = long.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        expectPocketBaseError(
            try await call(gatehouse, "GET", "/api/collections/users/records?filter=\(longQuery)", token: token), 400)
        await gatehouse.stop()
    }

    @Test func paging_sortingAndUnknownThings() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let token = try await userToken(gatehouse, "p@example.com")
        let capped = try await call(gatehouse, "GET", "/api/collections/users/records?perPage=100000&page=abc", token: token)
        #expect(capped.status == 200 && capped.json["perPage"] as? Int == 500 && capped.json["page"] as? Int == 1)
        let skip = try await call(gatehouse, "GET", "/api/collections/users/records?skipTotal=true", token: token)
        #expect(skip.json["totalItems"] as? Int == -1 && skip.json["totalPages"] as? Int == -1)
        expectPocketBaseError(
            try await call(gatehouse, "GET", "/api/collections/users/records?sort=-nosuchfield", token: token), 400)
        let unknownCollection = try await call(gatehouse, "GET", "/api/collections/nope/records", token: token)
        expectPocketBaseError(unknownCollection, 404)
        #expect(unknownCollection.json["message"] as? String == "Missing collection context.")
        expectPocketBaseError(
            try await call(gatehouse, "GET", "/api/collections/users/records/zzzzzzzzzzzzzzz", token: token), 404)
        // A token that is not one, an expired one, an empty header: a guest, as on PocketBase.
        for bad in ["garbage", "Bearer ", "eyJhbGciOiJIUzI1NiJ9.e30.sig"] {
            let guest = try await call(gatehouse, "GET", "/api/collections/users/records", token: bad)
            #expect(guest.status == 200 && guest.json["totalItems"] as? Int == 0)
            expectPocketBaseError(try await call(gatehouse, "POST", "/api/collections/users/auth-refresh", token: bad), 401)
        }
        gatehouse.clock.advance(6 * 24 * 3600)
        expectPocketBaseError(try await call(gatehouse, "POST", "/api/collections/users/auth-refresh", token: token), 401)
        await gatehouse.stop()
    }

    @Test func aUserSeesAndChangesOnlyTheirOwnRecordAndNeverTheirEmailOrVerifiedFlag() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let ann = try await userToken(gatehouse, "ann@example.com")
        let bob = try await userToken(gatehouse, "bob@example.com")
        let bobID = try #require(
            (try await call(gatehouse, "POST", "/api/collections/users/auth-refresh", token: bob).json["record"] as? [String: Any])?[
                "id"]
                as? String)
        expectPocketBaseError(try await call(gatehouse, "GET", "/api/collections/users/records/\(bobID)", token: ann), 404)
        expectPocketBaseError(
            try await call(gatehouse, "PATCH", "/api/collections/users/records/\(bobID)", json: ["name": "x"], token: ann), 404)
        expectPocketBaseError(try await call(gatehouse, "DELETE", "/api/collections/users/records/\(bobID)", token: ann), 404)
        expectPocketBaseError(
            try await call(gatehouse, "PATCH", "/api/collections/users/records/\(bobID)", json: ["verified": true], token: bob),
            400)
        expectPocketBaseError(
            try await call(
                gatehouse, "PATCH", "/api/collections/users/records/\(bobID)", json: ["email": "new@example.com"], token: bob),
            400)
        let wrongOld = try await call(
            gatehouse, "PATCH", "/api/collections/users/records/\(bobID)",
            json: ["password": "new-password-1", "passwordConfirm": "new-password-1", "oldPassword": "nope-nope-1"], token: bob)
        expectPocketBaseError(wrongOld, 400)
        #expect((wrongOld.json["data"] as? [String: Any])?["oldPassword"] != nil)
        // A session made through the API is one the person can see and end.
        let sessions = try await gatehouse.database.sessions(userID: .init(bobID))
        #expect(sessions.contains { $0.revokedAt == nil })
        await gatehouse.stop()
    }
    /// PocketBase's SDKs confirm an address with a token (`confirmVerification(token)`), so a server
    /// verifying by code mails a link with the code when the PocketBase API asks (its create mails
    /// nothing, as PocketBase's); either one spends the other.
    @Test func requestVerificationMailsTheCodeWithALinkWhoseTokenConfirms() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let email = "sdk-app@example.com"
        let created = try await call(
            gatehouse, "POST", "/api/collections/users/records",
            json: ["email": email, "password": "quiet-otter-123", "passwordConfirm": "quiet-otter-123"])
        #expect(created.status == 200, "\(created.text)")
        #expect(try await gatehouse.mails(to: email).isEmpty, "create mails nothing")
        let asked = try await call(gatehouse, "POST", "/api/collections/users/request-verification", json: ["email": email])
        #expect(asked.status == 204, "\(asked.text)")
        let mail = try #require(try await gatehouse.mails(to: email).first)
        let code = try #require(mail["code"] as? String, "the mail has no code: \(mail)")
        let link = try #require(mail["link"] as? String, "the mail has no link: \(mail)")
        #expect((mail["text"] as? String)?.contains(code) == true && (mail["text"] as? String)?.contains(link) == true)

        let confirmed = try await call(
            gatehouse, "POST", "/api/collections/users/confirm-verification",
            json: ["token": try AttackScript.linkToken(in: link)])
        #expect(confirmed.status == 204, "\(confirmed.text)")
        #expect(try await gatehouse.database.user(email: email)?.verified == true)
        let byCode = try await call(
            gatehouse, "POST", "/api/auth/email/verify", json: ["email": email, "otp": code])
        #expect(byCode.status == 400, "the code of the same mail still answered \(byCode.status): \(byCode.text)")
        await gatehouse.stop()
    }
}
