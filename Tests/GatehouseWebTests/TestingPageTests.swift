import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The console's Testing page (`/_/testing`): staff add and remove faults, move an account's clock,
/// sign someone in with one call, read an address's latest codes and the request ledger — the same
/// owners as `/_/api/test`.
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

    /// Staff move one account's clock, sign it in by one call and read the cookie that way hands
    /// out, then end its sessions at once; refused fields say what is wrong beside the field.
    @Test func staffMoveAnAccountsClockSignItInAndEndItsSessions() async throws {
        let gatehouse = try await TestGatehouse()
        let script = try await TestControlsScript(gatehouse)
        _ = try await script.account("ada@example.com")
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/testing")
        #expect(page.status == 200 && page.text.contains("Account clock") && page.text.contains("One-call sign-in"))

        let nobody = try await staff.post("/_/testing/clock", [("email", "nobody@example.com"), ("seconds", "60")])
        #expect(nobody.status == 422 && nobody.text.contains("No account has this address."))
        #expect(nobody.text.contains(#"value="nobody@example.com""#), "the form keeps what was typed")
        let word = try await staff.post("/_/testing/clock", [("email", "ada@example.com"), ("seconds", "soon")])
        #expect(word.status == 422 && word.text.contains("Give a number of seconds"))
        let negative = try await staff.post("/_/testing/clock", [("email", "ada@example.com"), ("seconds", "-5")])
        #expect(negative.status == 422 && negative.text.contains("above 0"))
        let moved = try await staff.post("/_/testing/clock", [("email", "ada@example.com"), ("seconds", "691200")])
        #expect(moved.status == 200 && moved.text.contains("8 days ahead of the server"), "\(moved.status)")

        let signedIn = try await staff.post("/_/testing/sign-in", [("email", "ada@example.com"), ("way", "pages")])
        #expect(signedIn.status == 200 && signedIn.text.contains("data-sign-in-answer"))
        let answer = signedIn.text.replacingOccurrences(of: "&quot;", with: "\"")
        let value = try #require(
            answer.range(of: #""value" : "[^"]+""#, options: .regularExpression).map {
                String(answer[$0].dropFirst(11).dropLast())
            }, "no cookie in the answer")
        let account = try await script.call("GET", "/account", headers: [("Cookie", "gh_session=\(value)")])
        #expect(account.status == 200 && account.text.contains("ada@example.com"), "minted in her time, it holds")
        #expect(staff.cookie("gh_session") == nil, "the staff's browser is not signed in as her")
        let unknown = try await staff.post("/_/testing/sign-in", [("email", "nobody@example.com"), ("way", "insforge")])
        #expect(unknown.status == 422 && unknown.text.contains("No account has this address."))

        let ended = try await staff.post(
            "/_/testing/clock/expire-now", [("email", "ada@example.com"), ("kind", "sessions")])
        #expect(ended.status == 200 && ended.text.contains("Ended 1 session of ada@example.com."))
        let after = try await script.call("GET", "/account", headers: [("Cookie", "gh_session=\(value)")])
        #expect(after.status == 303)
        #expect(try await script.audit("test.clock_advanced").count == 1)
        #expect(try await script.audit("test.sign_in").count == 1)
        await gatehouse.stop()
    }

    /// Showing the page is no act: however often staff open it, with its ledger, the audit log
    /// records none of it (reading an address's codes still is).
    @Test func openingThePageIsNotAudited() async throws {
        let gatehouse = try await TestGatehouse()
        let staff = try await gatehouse.staffBrowser()
        for _ in 0..<3 { #expect(try await staff.get("/_/testing").status == 200) }
        let script = try await TestControlsScript(gatehouse)
        #expect(try await script.audit("test.requests_read").isEmpty)
        _ = try await staff.get("/_/testing?email=ada%40example.com")
        #expect(try await script.audit("test.codes_read").count == 1)
        await gatehouse.stop()
    }
}
