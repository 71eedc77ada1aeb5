import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Seeding, importing, exporting and bulk-deleting test users through the JSON admin API.
@Suite(.stopsWhatItStarts) struct TestUserAPITests {
    /// A superuser's call to the admin API with a JSON (or other) body.
    struct AdminCaller {
        let port: Int
        let token: String

        func send(
            _ method: String, _ target: String, json: Any? = nil, raw: [UInt8]? = nil,
            contentType: String = "application/json"
        ) async throws -> TestResponse {
            var headers = [("Authorization", "Bearer \(token)")]
            var body: [UInt8] = []
            if let json { body = [UInt8](try JSONSerialization.data(withJSONObject: json)) }
            if let raw { body = raw }
            if !body.isEmpty { headers.append(("Content-Type", contentType)) }
            return try await HTTPTestClient(port: port).request(method, target, headers: headers, body: body)
        }

        func object(_ response: TestResponse) throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                "not a JSON object: \(response.text)")
        }

        /// How many users carry `tag` (or how many exist), as `GET /_/api/users` counts them.
        func total(tag: String? = nil) async throws -> Int {
            let response = try await send("GET", "/_/api/users?limit=1" + (tag.map { "&tag=\($0)" } ?? ""))
            return try #require(try object(response)["totalItems"] as? Int)
        }
    }

    private func signIn(_ gatehouse: TestGatehouse, _ email: String, _ password: String) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let response = try await browser.post("/auth/sign-in", [("email", email), ("password", password)])
        #expect(
            response.status == 303 && response.header("Location") == "/account", "sign-in of \(email) answered \(response.status)"
        )
        return browser
    }

    @Test func seedTenThousandUsersWithOneTag() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        let response = try await admin.send(
            "POST", "/_/api/users/seed",
            json: [
                "count": 10_000, "pattern": "load+{n}@example.com", "password": "shared-password-1", "verified": true,
                "tag": "load"
            ])
        #expect(response.status == 201, "\(response.text)")
        let body = try admin.object(response)
        #expect(body["created"] as? Int == 10_000)
        #expect(body["tag"] as? String == "load")
        #expect(body["ids"] == nil, "more than 1,000 ids are not listed")
        #expect(try await admin.total(tag: "load") == 10_000)
        _ = try await signIn(gatehouse, "load+9999@example.com", "shared-password-1")

        let small = try admin.object(
            try await admin.send(
                "POST", "/_/api/users/seed",
                json: [
                    "count": 3, "pattern": "small+{n}@example.com", "password": "shared-password-1"
                ]))
        #expect((small["ids"] as? [String])?.count == 3)
        await gatehouse.stop()
    }

    @Test func seedWithATakenAddressWritesNothing() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        let taken = try await admin.send(
            "POST", "/_/api/users", json: ["email": "Test+3@example.com", "password": "quiet-otter-123"])
        #expect(taken.status == 201)
        let response = try await admin.send(
            "POST", "/_/api/users/seed",
            json: [
                "count": 50, "pattern": "test+{n}@example.com", "password": "shared-password-1", "tag": "clash"
            ])
        #expect(response.status == 422)
        #expect(response.text.contains("Test+3@example.com"))
        #expect(try await admin.total() == 1)
        #expect(try await admin.total(tag: "clash") == 0)

        let invalid = try await admin.send(
            "POST", "/_/api/users/seed",
            json: [
                "count": 0, "pattern": "no-placeholder@example.com", "password": "short"
            ])
        #expect(invalid.status == 422)
        let fields = try #require(try admin.object(invalid)["fields"] as? [[String: Any]])
        #expect(Set(fields.compactMap { $0["field"] as? String }) == ["count", "pattern", "password"])
        await gatehouse.stop()
    }

    @Test func importWithBadRowsNamesEveryOneAndWritesNothing() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        let csv = """
            email,password,name,verified,passwordHash
            good1@example.com,password-123,Good One,true,
            not-an-address,password-123,Bad Address,true,
            good2@example.com,password-123,"Two, with comma",false,
            short@example.com,short,Short Password,true,
            good1@EXAMPLE.com,password-123,Duplicate,true,
            good3@example.com,password-123,Good Three,maybe,
            taken@example.com,password-123,Already There,true,

            """
        _ = try await admin.send("POST", "/_/api/users", json: ["email": "taken@example.com", "password": "quiet-otter-123"])
        let response = try await admin.send("POST", "/_/api/users/import", raw: Array(csv.utf8), contentType: "text/csv")
        #expect(response.status == 422, "\(response.text)")
        let rows = try #require(try admin.object(response)["rows"] as? [[String: Any]])
        #expect(rows.compactMap { $0["row"] as? Int } == [3, 5, 6, 7, 8])
        #expect(try await admin.total() == 1, "only the account made before the import")
        await gatehouse.stop()
    }

    @Test func importCSVAndJSONThenSignIn() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        let csv =
            "email,password,name,verified,passwordHash\r\ncsv1@example.com,password-123,\"Quote \"\"Q\"\" Person\",true,\r\ncsv2@example.com,password-456,,false,\r\n"
        let fromCSV = try await admin.send("POST", "/_/api/users/import", raw: Array(csv.utf8), contentType: "text/csv")
        #expect(fromCSV.status == 201, "\(fromCSV.text)")
        #expect(try admin.object(fromCSV)["created"] as? Int == 2)
        let fromJSON = try await admin.send(
            "POST", "/_/api/users/import",
            json: [
                "items": [
                    [
                        "email": "json1@example.com", "password": "password-789", "verified": true,
                        "profile": ["bio": "Imported"],
                        "tags": ["from-json"]
                    ]
                ]
            ])
        #expect(fromJSON.status == 201, "\(fromJSON.text)")
        #expect(try await admin.total(tag: "from-json") == 1)
        let user = try await signIn(gatehouse, "csv1@example.com", "password-123")
        #expect(try await user.get("/account").text.contains("Quote &quot;Q&quot; Person"))
        _ = try await signIn(gatehouse, "json1@example.com", "password-789")
        await gatehouse.stop()
    }

    @Test func importedBcryptHashSignsInAndBecomesArgon2id() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        let hash = try await PythonScript.run(
            "import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 4)))",
            arguments: ["pocketbase-pw-1"]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hash.hasPrefix("$2b$"))
        let response = try await admin.send(
            "POST", "/_/api/users/import",
            json: [
                ["email": "pb@example.com", "passwordHash": hash, "verified": true]
            ])
        #expect(response.status == 201, "\(response.text)")
        #expect(try await gatehouse.database.user(email: "pb@example.com")?.passwordHash == hash)
        _ = try await signIn(gatehouse, "pb@example.com", "pocketbase-pw-1")
        let stored = try #require(try await gatehouse.database.user(email: "pb@example.com")?.passwordHash)
        #expect(stored.hasPrefix("$argon2id$"), "rehashed on first sign-in")
        _ = try await signIn(gatehouse, "pb@example.com", "pocketbase-pw-1")
        await gatehouse.stop()
    }

    @Test func exportAndReimportRoundTrip() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        _ = try await admin.send(
            "POST", "/_/api/users/import",
            json: (1...30).map { index in
                [
                    "email": "round\(index)@example.com", "password": "quiet-otter-123", "name": "Round, \"\(index)\"",
                    "verified": index % 2 == 0, "tags": ["trip"]
                ] as [String: Any]
            })
        _ = try await admin.send("POST", "/_/api/users", json: ["email": "other@example.com", "password": "quiet-otter-123"])
        for format in ["json", "csv"] {
            let export = try await admin.send("GET", "/_/api/users/export?format=\(format)&tag=trip")
            #expect(export.status == 200)
            #expect(export.header("Content-Disposition") == "attachment; filename=\"users-trip.\(format)\"")
            #expect(!export.text.contains("argon2id"), "no password hashes in exports")
            #expect(!export.text.contains("other@example.com"))
            let deleted = try admin.object(try await admin.send("DELETE", "/_/api/users?tag=trip"))
            #expect(deleted["deleted"] as? Int == 30)
            #expect(try await admin.total() == 1)
            let again = try await admin.send(
                "POST", "/_/api/users/import", raw: export.body,
                contentType: format == "csv" ? "text/csv" : "application/json")
            #expect(again.status == 201, "\(format): \(again.text)")
            #expect(try await admin.total(tag: "trip") == 30)
            let list = try admin.object(try await admin.send("GET", "/_/api/users?tag=trip&search=round7%40&limit=5"))
            let user = try #require((list["items"] as? [[String: Any]])?.first)
            #expect((user["profile"] as? [String: Any])?["name"] as? String == "Round, \"7\"")
            #expect(user["emailVerified"] as? Bool == false)
        }
        let everyone = try await admin.send("GET", "/_/api/users/export?format=csv")
        #expect(everyone.text.split(separator: "\r\n").count == 32, "header and 31 users")
        await gatehouse.stop()
    }

    @Test func bulkDeleteRemovesOnlyTheTagAndSignsThemOut() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        for (tag, count) in [("doomed", 5), ("kept", 3)] {
            let seeded = try await admin.send(
                "POST", "/_/api/users/seed",
                json: [
                    "count": count, "pattern": "\(tag)+{n}@example.com", "password": "shared-password-1", "verified": true,
                    "tag": tag
                ])
            #expect(seeded.status == 201)
        }
        let doomed = try await signIn(gatehouse, "doomed+2@example.com", "shared-password-1")
        let kept = try await signIn(gatehouse, "kept+2@example.com", "shared-password-1")
        let response = try await admin.send("DELETE", "/_/api/users?tag=doomed")
        #expect(try admin.object(response)["deleted"] as? Int == 5)
        #expect(try await admin.total(tag: "doomed") == 0)
        #expect(try await admin.total(tag: "kept") == 3)
        #expect(try await admin.total() == 3)
        #expect(try await doomed.get("/account", follow: false).status == 303, "deleted users are signed out")
        #expect(try await kept.get("/account", follow: false).status == 200)
        await gatehouse.stop()
    }
}
