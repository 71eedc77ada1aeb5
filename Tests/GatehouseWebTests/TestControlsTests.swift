import Foundation
import HTTPTestClient
import Store
import TestScope
import Testing

/// Codes without mail, the request ledger and the reset (issue 47, item 2), over HTTP with a
/// superuser's admin-API token.
@Suite(.stopsWhatItStarts) struct TestControlsTests {
    static let password = "correct horse battery staple"
    static let anon = [("Authorization", "Bearer anon_app_key")]

    private func control(_ gatehouse: TestGatehouse, _ token: String, _ method: String, _ path: String) async throws
        -> TestResponse
    {
        try await AttackScript(port: gatehouse.port).call(method, "/_/api/test" + path, bearer: token)
    }

    @Test func theLatestCodeAndLinkOfEachKindAreTheOnesTheMailsCarry() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let token = try await gatehouse.adminToken()
        let script = AttackScript(port: gatehouse.port)
        _ = try await script.call(
            "POST", "/api/auth/users", ["email": "cy@example.com", "password": Self.password], bearer: "anon_app_key")
        _ = try await script.call("POST", "/api/collections/users/request-password-reset", ["email": "cy@example.com"])
        let mails = try await gatehouse.mails(to: "cy@example.com")
        let answer = try await control(gatehouse, token, "GET", "/codes?email=cy%40example.com")
        let items = try #require(answer.json["items"] as? [[String: Any]], "\(answer.text)")
        let byKind = Dictionary(items.map { ($0["kind"] as? String ?? "", $0) }) { first, _ in first }
        #expect(Set(byKind.keys) == ["verification", "password_reset"])
        let verificationMail = try #require(mails.first { ($0["subject"] as? String)?.contains("verification") == true })
        #expect(byKind["verification"]?["code"] as? String == verificationMail["code"] as? String)
        let resetMail = try #require(mails.first { ($0["subject"] as? String)?.contains("Reset") == true })
        #expect(byKind["password_reset"]?["link"] as? String == resetMail["link"] as? String)
        #expect((byKind["password_reset"]?["link"] as? String)?.isEmpty == false)
        #expect(try await control(gatehouse, token, "GET", "/codes?email=nope").status == 422)
        let read = try await gatehouse.database.auditEvents(AuditFilter(type: "test.codes_read", limit: 5))
        #expect(read.count == 1, "every use is audited")
        await gatehouse.stop()
    }

    @Test func theLedgerKeepsEachRequestsIdRouteWayInStatusAndWhatItCaused() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let token = try await gatehouse.adminToken()
        let client = HTTPTestClient(port: gatehouse.port)
        let body = Array(try JSONSerialization.data(withJSONObject: ["email": "di@example.com", "password": Self.password]))
        let signUp = try await client.request(
            "POST", "/api/auth/users",
            headers: Self.anon + [("Content-Type", "application/json"), ("X-Request-Id", "suite-run-42")], body: body)
        #expect(signUp.header("X-Request-Id") == "suite-run-42", "the caller's id is echoed")
        let plain = try await client.request("GET", "/api/health")
        #expect(plain.header("X-Request-Id")?.hasPrefix("gh-") == true, "one is made when none is sent")
        let listed = try await control(gatehouse, token, "GET", "/requests?id=suite-run-42")
        let entry = try #require((listed.json["items"] as? [[String: Any]])?.first, "\(listed.text)")
        #expect(entry["route"] as? String == "/api/auth/users" && entry["wayIn"] as? String == "insforge")
        #expect(entry["status"] as? Int == 200 && entry["method"] as? String == "POST")
        let caused = (entry["caused"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "") \($0["detail"] ?? "")" }
        #expect(caused.contains("mail di@example.com") && caused.contains("audit user.signed_up"), "\(caused)")
        let code = try await gatehouse.latestCode(for: "di@example.com")
        let verified = try await client.request(
            "POST", "/api/auth/email/verify?client_type=mobile",
            headers: Self.anon + [("Content-Type", "application/json"), ("X-Request-Id", "verify-1")],
            body: Array(try JSONSerialization.data(withJSONObject: ["email": "di@example.com", "otp": code])))
        #expect(verified.status == 200, "\(verified.text)")
        let opened = try #require(
            (try await control(gatehouse, token, "GET", "/requests?id=verify-1").json["items"] as? [[String: Any]])?.first)
        let sessions = (opened["caused"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "session" }
        #expect(sessions.map { $0["detail"] as? String } == ["insforge-api"], "\(opened)")
        let newest = try #require(
            (try await control(gatehouse, token, "GET", "/requests?limit=2").json["items"] as? [[String: Any]]))
        #expect(newest.count == 2 && newest[0]["route"] as? String == "/_/api/test/requests", "newest first")
        #expect(try await control(gatehouse, token, "GET", "/requests?limit=0").status == 400)
        await gatehouse.stop()
    }

    @Test func aResetWipesPeopleMailAndFaultsAndKeepsStaffAndTheAuditLog() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let token = try await gatehouse.adminToken()
        let script = AttackScript(port: gatehouse.port)
        _ = try await script.call(
            "POST", "/api/auth/users", ["email": "ed@example.com", "password": Self.password], bearer: "anon_app_key")
        _ = try await script.call("POST", "/_/api/test/faults", ["path": "/nowhere", "status": 500], bearer: token)
        let reset = try await control(gatehouse, token, "POST", "/reset")
        #expect(reset.status == 200 && reset.json["people"] as? Int == 1 && reset.json["faults"] as? Int == 1, "\(reset.text)")
        #expect((reset.json["mails"] as? Int ?? 0) >= 1)
        #expect(try await gatehouse.mails(to: "ed@example.com").isEmpty)
        let users = try await script.call("GET", "/_/api/users", bearer: token)
        #expect(users.status == 200 && (users.json["items"] as? [Any])?.isEmpty == true, "staff stay signed in; people go")
        #expect((try await control(gatehouse, token, "GET", "/faults").json["items"] as? [Any])?.isEmpty == true)
        let again = try await script.call(
            "POST", "/api/auth/users", ["email": "ed@example.com", "password": Self.password], bearer: "anon_app_key")
        #expect(again.status == 200 && again.json["requireEmailVerification"] as? Bool == true, "the address is free again")
        let audited = try await gatehouse.database.auditEvents(AuditFilter(type: "test.reset", limit: 5))
        #expect(audited.count == 1 && audited.first?.actor != nil, "the log stays and names the superuser")
        await gatehouse.stop()
    }
}
