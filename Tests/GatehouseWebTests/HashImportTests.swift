import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 9, item 4: imported password hashes are untrusted. A huge cost is refused at import with
/// its row named; a bcrypt hash never matches a password past 72 bytes.
@Suite(.stopsWhatItStarts) struct HashImportTests {
    static let bcryptCost31 = "$2b$31$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS"
    static let argon2FourGiB =
        "$argon2id$v=19$m=4194304,t=100,p=1$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA"
    /// bcrypt (libxcrypt, cost 4) of 72 × "B".
    static let seventyTwoBs = "$2b$04$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS"

    @Test func expensiveHashesAreRefusedAtImportNamingTheRow() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = TestUserAPITests.AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        let json = try await admin.send(
            "POST", "/_/api/users/import",
            json: [
                ["email": "fine@example.com", "passwordHash": Self.seventyTwoBs],
                ["email": "slow@example.com", "passwordHash": Self.bcryptCost31],
                ["email": "huge@example.com", "passwordHash": Self.argon2FourGiB]
            ])
        #expect(json.status == 422, "\(json.text)")
        let rows = try #require(try admin.object(json)["rows"] as? [[String: Any]])
        #expect(rows.compactMap { $0["row"] as? Int } == [2, 3])
        #expect((rows.first?["message"] as? String)?.contains("bcrypt cost 31 is outside 4…12") == true, "\(rows)")
        #expect((rows.last?["message"] as? String)?.contains("m=4194304,t=100,p=1") == true, "\(rows)")

        let csv = "email,passwordHash\nslow@example.com,\(Self.bcryptCost31)\nhuge@example.com,\(Self.argon2FourGiB)\n"
        let fromCSV = try await admin.send("POST", "/_/api/users/import", raw: Array(csv.utf8), contentType: "text/csv")
        #expect(fromCSV.status == 422, "\(fromCSV.text)")
        #expect((try admin.object(fromCSV)["rows"] as? [[String: Any]])?.compactMap { $0["row"] as? Int } == [2, 3])
        #expect(try await admin.total() == 0, "nothing was written")

        let staff = try await gatehouse.staffBrowser()
        let csrf = try #require(Browser.csrfToken(in: try await staff.get("/_/test-users").text))
        let page = try await staff.upload("/_/test-users/import", csrf: csrf, filename: "users.csv", bytes: Array(csv.utf8))
        #expect(page.status == 422)
        #expect(page.text.contains("The bcrypt cost 31 is outside 4…12."))
        await gatehouse.stop()
    }

    @Test func bcryptImportsSignInButNotPastSeventyTwoBytes() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = TestUserAPITests.AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        let imported = try await admin.send(
            "POST", "/_/api/users/import",
            json: [["email": "bees@example.com", "passwordHash": Self.seventyTwoBs, "verified": true]])
        #expect(imported.status == 201, "\(imported.text)")
        let bs = String(repeating: "B", count: 72)

        let attacker = gatehouse.browser()
        _ = try await attacker.get("/auth/sign-in")
        let longer = try await attacker.post("/auth/sign-in", [("email", "bees@example.com"), ("password", bs + "anything")])
        #expect(longer.status != 303, "bcrypt's truncation let a longer password in")

        let owner = gatehouse.browser()
        _ = try await owner.get("/auth/sign-in")
        let exact = try await owner.post("/auth/sign-in", [("email", "bees@example.com"), ("password", bs)])
        #expect(exact.status == 303 && exact.header("Location") == "/account", "\(exact.status)")
        await gatehouse.stop()
    }
}
