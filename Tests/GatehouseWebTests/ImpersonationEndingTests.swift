import Foundation
import HTTPTestClient
import Store
import TestScope
import Testing

/// Issue 9, item 8: an impersonation ends everywhere its superuser leaves, every act inside it names
/// both people, and however it ends, `impersonation.stopped` names the actor as `started` did.
@Suite(.stopsWhatItStarts) struct ImpersonationEndingTests {
    private func userWithStaff() async throws -> (TestGatehouse, Browser, String) {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let created = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/api/users", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"email":"viewed@example.com","password":"quiet-otter-123","verified":true,"name":"Viewed"}"#.utf8))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
        let id = try #require((json["user"] as? [String: Any])?["id"] as? String)
        return (gatehouse, try await gatehouse.staffBrowser(), id)
    }

    private func events(_ gatehouse: TestGatehouse, _ type: String) async throws -> [AuditEventRecord] {
        try await gatehouse.database.auditEvents(subject: nil, limit: 200).filter { $0.type == type }
    }

    @Test func signingOutOfTheConsoleEndsTheImpersonationsItStarted() async throws {
        let (gatehouse, staff, id) = try await userWithStaff()
        // An API token for the user, then a browser session as the user, from the same superuser.
        let token = try await staff.post("/_/users/\(id)/impersonate", [("duration", "60"), ("mode", "token")])
        #expect(token.status == 200)
        let started = try await staff.post("/_/users/\(id)/impersonate", [("duration", "60"), ("mode", "browser")])
        #expect(started.header("Location") == "/account")
        #expect(try await staff.get("/account", follow: false).status == 200)

        _ = try await staff.get("/_/users")
        let signedOut = try await staff.post("/_/sign-out", [])
        #expect(signedOut.status == 303)
        #expect(try await staff.get("/account", follow: false).status == 303, "the impersonation outlived the console session")
        let live = try await gatehouse.database.sessions(userID: .init(id)).filter {
            $0.impersonator != nil && $0.revokedAt == nil
        }
        #expect(live.isEmpty, "impersonation sessions still live: \(live.count)")

        let starts = try await events(gatehouse, "impersonation.started")
        let stops = try await events(gatehouse, "impersonation.stopped")
        #expect(stops.count == 2)
        #expect(stops.allSatisfy { $0.data["reason"]?.stringValue == "console_signed_out" && $0.subject == id })
        #expect(Set(stops.map(\.actor)) == Set(starts.map(\.actor)), "stopped names the actor as started does")
        await gatehouse.stop()
    }

    @Test func actsWhileImpersonatingNameTheSuperuserAndSigningOutStopsIt() async throws {
        let (gatehouse, staff, id) = try await userWithStaff()
        _ = try await staff.post("/_/users/\(id)/impersonate", [("duration", "15"), ("mode", "browser")])
        _ = try await staff.get("/account")
        let saved = try await staff.post("/account", [("name", "Changed By Support"), ("bio", ""), ("avatar_url", "")])
        #expect(saved.status == 303)
        let update = try #require(try await events(gatehouse, "profile.updated").first)
        #expect(update.subject == id)
        #expect(update.data["impersonator"]?.stringValue == "staff@example.com", "\(update.data)")

        let out = try await staff.post("/auth/sign-out", [])
        #expect(out.status == 303)
        #expect(try await staff.get("/account", follow: false).status == 303)
        let signOut = try #require(try await events(gatehouse, "sign_out").first)
        #expect(signOut.data["impersonator"]?.stringValue == "staff@example.com")
        let stop = try #require(try await events(gatehouse, "impersonation.stopped").first)
        #expect(stop.data["reason"]?.stringValue == "signed_out")
        #expect(stop.actor == (try await events(gatehouse, "impersonation.started").first?.actor))
        await gatehouse.stop()
    }
}
