import AuthCore
import Foundation
import HTTPTestClient
import Store
import TestScope
import Testing

/// Issue 23: an impersonation starts one way (`ImpersonationStart`), whichever front-end asks — the
/// same refusals from the console, the admin API and PocketBase's `impersonate`, and one audit shape, recorded only once the
/// session exists.
@Suite(.stopsWhatItStarts) struct ImpersonationStartTests {
    /// A server with a user (made through the admin API, whose token comes back too) and a
    /// browser signed in to the console as `staff@example.com`.
    private func userAndStaff(_ email: String) async throws -> (TestGatehouse, token: String, id: String, staff: Browser) {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let created = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/api/users", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"email":"\#(email)","password":"quiet-otter-123","verified":true}"#.utf8))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
        let id = try #require((json["user"] as? [String: Any])?["id"] as? String)
        return (gatehouse, token, id, try await gatehouse.staffBrowser())
    }

    private func impersonateThroughAPI(_ gatehouse: TestGatehouse, token: String, id: String, seconds: Int) async throws
        -> TestResponse
    {
        try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/api/users/\(id)/impersonate",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"duration": \#(seconds)}"#.utf8))
    }

    private func starts(_ gatehouse: TestGatehouse) async throws -> [AuditEventRecord] {
        try await gatehouse.database.auditEvents(subject: nil, limit: 200).filter { $0.type == "impersonation.started" }
    }

    @Test func aDisabledAccountIsRefusedByTheConsoleTheAdminAPIAndPocketBaseAlike() async throws {
        let (gatehouse, token, id, staff) = try await userAndStaff("disabled@example.com")
        let disabled = try await HTTPTestClient(port: gatehouse.port).request(
            "PATCH", "/_/api/users/\(id)", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"disabled":true}"#.utf8))
        #expect(disabled.status == 200)

        let page = try await staff.get("/_/users/\(id)")
        #expect(
            page.text.contains("Disabled accounts can&#39;t be impersonated") || page.text.contains("Disabled accounts can't"))
        let console = try await staff.post("/_/users/\(id)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(console.status == 403)
        let tokenMode = try await staff.post("/_/users/\(id)/impersonate", [("duration", "5"), ("mode", "token")])
        #expect(tokenMode.status == 403)
        let api = try await impersonateThroughAPI(gatehouse, token: token, id: id, seconds: 300)
        #expect(api.status == 403)
        #expect(api.text.contains("Disabled accounts can't be impersonated."), "\(api.text)")
        // PocketBase's route skipped the policy: a disabled account could be impersonated there.
        try await gatehouse.createSuperuser("root@example.com", password: "staff-password-1")
        let rootToken = try await gatehouse.pocketBaseSuperuserToken("root@example.com")
        let pocketBase = try await gatehouse.script.call(
            "POST", "/api/collections/users/impersonate/\(id)", ["duration": 600], token: rootToken)
        #expect(pocketBase.status == 403, "\(pocketBase.text)")
        #expect(pocketBase.json["message"] as? String == "Disabled accounts can't be impersonated.", "\(pocketBase.text)")
        #expect(pocketBase.json["token"] == nil)

        #expect(try await starts(gatehouse).isEmpty, "a refused start is not recorded as started")
        let live = try await gatehouse.database.sessions(userID: UserID(id)).filter { $0.impersonator != nil }
        #expect(live.isEmpty, "no session was opened for the disabled account")
        await gatehouse.stop()
    }

    @Test func theConsoleAndTheAdminAPIRecordTheSameStart() async throws {
        let (gatehouse, token, id, staff) = try await userAndStaff("viewed@example.com")

        let console = try await staff.post("/_/users/\(id)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(console.header("Location") == "/account")
        let api = try await impersonateThroughAPI(gatehouse, token: token, id: id, seconds: 300)
        #expect(api.status == 200)

        let events = try await starts(gatehouse)
        #expect(events.count == 2)
        let consoleEvent = try #require(events.first { $0.data["via"]?.stringValue == "console" })
        let apiEvent = try #require(events.first { $0.data["via"]?.stringValue == "api" })
        for event in [consoleEvent, apiEvent] {
            #expect(event.subject == id)
            #expect(Set(event.data.keys) == ["mode", "seconds", "via"], "\(event.data)")
            #expect(event.data["seconds"] == .number(300))
            let actor = try #require(event.actor)
            #expect(try await gatehouse.database.superuser(id: actor) != nil, "the actor is the superuser, by id")
        }
        #expect(consoleEvent.data["mode"]?.stringValue == "browser")
        #expect(apiEvent.data["mode"]?.stringValue == "api")
        #expect(try await gatehouse.database.superuser(id: consoleEvent.actor ?? "")?.email == "staff@example.com")
        #expect(try await gatehouse.database.superuser(id: apiEvent.actor ?? "")?.email == "api-staff@example.com")
        await gatehouse.stop()
    }
}
