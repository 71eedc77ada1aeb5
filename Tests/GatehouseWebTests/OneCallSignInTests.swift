import Foundation
import HTTPTestClient
import Logging
import Secrets
import TestScope
import Testing

@testable import Accounts

/// One-call sign-in (issue 47, README "Test controls"): what each way in hands out, from one call,
/// works there as if the person had signed in; only a superuser or a management key may ask.
@Suite(.stopsWhatItStarts) struct OneCallSignInTests {
    /// The pages' cookie opens `/account`, and each API's tokens open its signed-in calls.
    @Test func eachWaysCredentialWorksThere() async throws {
        let gatehouse = try await TestGatehouse()
        let script = try await TestControlsScript(gatehouse)
        let id = try await script.account("ada@example.com")
        let held = try await script.signInEveryWay("ada@example.com")
        let page = try await script.call("GET", "/account", headers: [("Cookie", "gh_session=\(held.cookie)")])
        #expect(page.status == 200 && page.text.contains("ada@example.com"))
        let record = try await script.call(
            "GET", "/api/collections/users/records/\(id)", headers: [("Authorization", held.pocketBase)])
        #expect(record.status == 200 && record.json["email"] as? String == "ada@example.com", "\(record.text)")
        let insForge = try await script.control("sign-in", ["email": "ada@example.com", "way": "insforge"])
        let access = try #require(insForge.json["accessToken"] as? String)
        let current = try await script.call("GET", "/api/auth/sessions/current", headers: [("Authorization", "Bearer \(access)")])
        #expect(current.status == 200 && (current.json["user"] as? [String: Any])?["id"] as? String == id, "\(current.text)")
        let me = try await script.call(
            "GET", "/v1/auth/me", headers: [("Authorization", "Bearer \(try script.descopeProject()):\(held.descope)")])
        #expect(me.status == 200 && me.json["userId"] as? String == id, "\(me.text)")
        let verified = try await script.superTokensVerify(held.superTokensAccess)
        #expect((verified.json["session"] as? [String: Any])?["userId"] as? String == id, "\(verified.text)")
        await gatehouse.stop()
    }

    /// Each sign-in is audited as a test sign-in naming the way and the caller's way in.
    @Test func everySignInIsAuditedAsATestSignIn() async throws {
        let gatehouse = try await TestGatehouse()
        let script = try await TestControlsScript(gatehouse)
        let id = try await script.account("ada@example.com")
        _ = try await script.signInEveryWay("ada@example.com")
        let rows = try await script.audit("test.sign_in")
        let ways = Set(rows.compactMap { ($0["data"] as? [String: Any])?["way"] as? String })
        #expect(ways == ["pages", "pocketbase", "insforge", "descope", "supertokens"])
        #expect(rows.allSatisfy { $0["subject"] as? String == id })
        #expect(rows.allSatisfy { ($0["data"] as? [String: Any])?["via"] as? String == "test-controls" })
        await gatehouse.stop()
    }

    /// Nobody without a superuser's token or a management key gets a session; a key does, and
    /// bad input answers in Gatehouse's envelope.
    @Test func onlyASuperuserOrAManagementKeySignsSomeoneIn() async throws {
        let gatehouse = try await TestGatehouse()
        let script = try await TestControlsScript(gatehouse)
        _ = try await script.account("ada@example.com")
        let body: [String: Any] = ["email": "ada@example.com", "way": "pocketbase"]
        let anonymous = try await script.call("POST", "/_/api/test/sign-in", body)
        #expect(anonymous.status == 401 && anonymous.json["error"] as? String == "UNAUTHORIZED", "\(anonymous.text)")
        let person = try #require(try await script.control("sign-in", body).json["token"] as? String)
        #expect(try await script.control("sign-in", body, bearer: person).status == 401)
        #expect(try await script.control("clock", ["email": "ada@example.com", "seconds": 60], bearer: person).status == 401)
        let keys = ManagementKeys(
            database: gatehouse.database, hasher: try KeyedHash(key: try gatehouse.database.secretKey(named: "keyed-hash")),
            clock: { gatehouse.clock.now }, logger: Logger(label: "test"))
        let key = try await keys.create(name: "CI", actor: nil, ip: nil, via: "cli")
        let bearer = "\(try script.descopeProject()):\(key.secret)"
        let byKey = try await script.control("sign-in", body, bearer: bearer)
        #expect(byKey.status == 200 && byKey.json["token"] is String, "\(byKey.text)")
        let rows = try await script.audit("test.sign_in")
        #expect(rows.contains { ($0["data"] as? [String: Any])?["managementKey"] as? String == key.key.id })
        #expect(try await script.control("sign-in", ["email": "ada@example.com", "way": "firebase"]).status == 400)
        #expect(try await script.control("sign-in", ["email": "nobody@example.com", "way": "pages"]).status == 404)
        await gatehouse.stop()
    }
}
