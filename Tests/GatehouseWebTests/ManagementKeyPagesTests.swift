import Foundation
import GatehouseWeb
import HTTPTestClient
import TestScope
import Testing

/// Management keys in the console (`/_/management-keys`): staff make one (shown once), it opens
/// Descope's management API, and once revoked it does not.
@Suite(.stopsWhatItStarts) struct ManagementKeyPagesTests {
    @Test func staffMakeShowOnceAndRevokeAKey() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
        let staff = try await gatehouse.staffBrowser()
        #expect(try await staff.get("/_/management-keys").text.contains("No management keys yet."))
        #expect(try await staff.post("/_/management-keys", [("name", "")]).status == 422)
        let created = try await staff.post("/_/management-keys", [("name", "CI runner")])
        let secret = try #require(
            created.text.range(of: #"data-management-key>(K[A-Za-z0-9_-]{43})<"#, options: .regularExpression).map {
                String(created.text[$0].dropFirst("data-management-key>".count).dropLast())
            })
        let search: @Sendable () async throws -> Int = {
            try await HTTPTestClient(port: gatehouse.port).request(
                "POST", "/v2/mgmt/user/search/test",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(project):\(secret)")],
                body: Array("{}".utf8)
            ).status
        }
        #expect(try await search() == 200)
        let listed = try await staff.get("/_/management-keys")
        #expect(listed.text.contains("CI runner") && !listed.text.contains(secret), "the key is shown once")
        let revokeURL = try #require(
            listed.text.range(of: #"/_/management-keys/[a-z0-9]+/revoke"#, options: .regularExpression).map {
                String(listed.text[$0])
            })
        #expect(try await staff.post(revokeURL, []).text.contains("Key revoked"))
        #expect(try await search() == 401)
        await gatehouse.stop()
    }
}
