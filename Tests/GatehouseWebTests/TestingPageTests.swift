import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The console's Testing page (`/_/testing`): staff add and remove faults, read an address's
/// latest codes and the request ledger — the same owners as `/_/api/test`.
@Suite(.stopsWhatItStarts) struct TestingPageTests {
    @Test func staffAddAFaultSeeItMetInTheLedgerRemoveItAndReadCodes() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let staff = try await gatehouse.staffBrowser()
        let empty = try await staff.get("/_/testing")
        #expect(empty.status == 200 && empty.text.contains("No faults in force"))
        let refused = try await staff.post(
            "/_/testing/faults", [("method", "GET"), ("path", "health"), ("status", "503"), ("delayMs", ""), ("count", "")])
        #expect(refused.status == 422 && refused.text.contains("starts with /"))
        let added = try await staff.post(
            "/_/testing/faults", [("method", "GET"), ("path", "/api/health"), ("status", "503"), ("delayMs", ""), ("count", "2")])
        #expect(added.status == 200 && added.text.contains("Fault added.") && added.text.contains("/api/health"))
        #expect(try await HTTPTestClient(port: gatehouse.port).request("GET", "/api/health").status == 503)
        let ledger = try await staff.get("/_/testing")
        #expect(ledger.text.components(separatedBy: ">fault</span>").count == 2, "only the faulted request is marked")
        let removeURL = try #require(
            ledger.text.range(of: #"/_/testing/faults/[a-z0-9]+/remove"#, options: .regularExpression).map {
                String(ledger.text[$0])
            })
        #expect(try await staff.post(removeURL, []).text.contains("Fault removed."))
        #expect(try await HTTPTestClient(port: gatehouse.port).request("GET", "/api/health").status == 200)
        _ = try await gatehouse.postJSON(
            "/api/auth/users", ["email": "fay@example.com", "password": "correct horse battery staple"])
        let code = try await gatehouse.latestCode(for: "fay@example.com")
        let codes = try await staff.get("/_/testing?email=fay%40example.com")
        #expect(codes.text.contains("<td class=\"cx-mono\" data-code>\(code)</td>"), "the mailed code")
        await gatehouse.stop()
    }
}
