import AuthCore
import Foundation
import GatehouseWeb
import HTTPTestClient
import TestScope
import Testing

/// Issue 42, item 7: rules that lived in one front-end, tried through the others.
@Suite(.stopsWhatItStarts) struct OwnerRuleAttackTests {
    static let password = "correct horse battery"

    private func superuserSignIn(_ gatehouse: TestGatehouse, password: String) async throws -> TestResponse {
        try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-password", ["identity": "root@example.com", "password": password])
    }

    /// A superuser's refused password through PocketBase's `_superusers` left no audit row; the
    /// console's form records each one.
    @Test func aRefusedSuperuserSignInThroughPocketBaseIsAudited() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        try await gatehouse.createSuperuser("root@example.com", password: "staff-password-1")
        #expect(try await superuserSignIn(gatehouse, password: "not-the-password").status == 400)
        let failed = try await gatehouse.database.auditEvents(subject: nil, limit: 50).filter {
            $0.type == "console.sign_in.failed"
        }
        #expect(failed.count == 1, "\(failed.map(\.type))")
        let data = failed.first?.data ?? [:]
        #expect(data["via"] == .string("pocketbase-api") && data["reason"] == .string("wrong_password"), "\(data)")
        await gatehouse.stop()
    }

    /// `auth-refresh` of a `_superusers` token opened a new console session each time, so a token
    /// refreshed every 25 minutes lived for ever; it renews the token's own session, which ends
    /// 12 hours after the sign-in.
    @Test func aRefreshedSuperuserTokenEndsWithItsSession() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        try await gatehouse.createSuperuser("root@example.com", password: "staff-password-1")
        let signedIn = try await superuserSignIn(gatehouse, password: "staff-password-1")
        var token = try #require(signedIn.json["token"] as? String, "\(signedIn.text)")
        let sid = try AttackScript.claims(of: token)["sid"] as? String
        var refreshed: [Int] = []
        for _ in 0..<30 {
            gatehouse.clock.advance(25 * 60)
            let answer = try await gatehouse.script.call("POST", "/api/collections/_superusers/auth-refresh", token: token)
            refreshed.append(answer.status)
            guard answer.status == 200, let next = answer.json["token"] as? String else { break }
            #expect(try AttackScript.claims(of: next)["sid"] as? String == sid, "the refresh opened another session")
            token = next
        }
        #expect(refreshed.count == 29 && refreshed.last == 401, "\(refreshed)")
        await gatehouse.stop()
    }

    /// Descope's `password/update` took a refresh JWT of any age: a session left signed in (or
    /// taken) set a new password and ended the owner's sessions. Past the recent-sign-in window it
    /// is refused in Descope's shape, as a project with step-up would.
    @Test func descopesPasswordUpdateOnAnOldSessionIsRefused() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
        let email = "descope-update@example.com"
        let up = try await gatehouse.script.call(
            "POST", "/v1/auth/password/signup", ["loginId": email, "password": Self.password], bearer: project)
        let refresh = try #require(up.json["refreshJwt"] as? String, "\(up.text)")
        let update: [String: Any] = ["loginId": email, "newPassword": "yellow kite harbor 58"]
        gatehouse.clock.advance(16 * 60)
        let stale = try await gatehouse.script.call("POST", "/v1/auth/password/update", update, bearer: "\(project):\(refresh)")
        #expect(stale.status == 403 && stale.json["errorCode"] is String, "\(stale.status) \(stale.text)")
        let signIn = try await gatehouse.script.call(
            "POST", "/v1/auth/password/signin", ["loginId": email, "password": Self.password], bearer: project)
        #expect(signIn.status == 200, "the old password still signs in: \(signIn.text)")

        let fresh = try #require(signIn.json["refreshJwt"] as? String)
        let recent = try await gatehouse.script.call("POST", "/v1/auth/password/update", update, bearer: "\(project):\(fresh)")
        #expect(recent.status == 200, "a recent sign-in sets it: \(recent.text)")
        await gatehouse.stop()
    }
}
