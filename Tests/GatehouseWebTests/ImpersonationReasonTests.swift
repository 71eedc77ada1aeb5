import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 49, item 5: staff say why they open an account as its owner — required with
/// `--impersonation-reason required` — and the reason (with its ticket link) is in the banner the
/// whole time, on the audit line and in the `impersonation.started` webhook; an act the
/// impersonation may not do is refused inside the person's pages, under that banner.
@Suite(.stopsWhatItStarts) struct ImpersonationReasonTests {
    static let email = "viewed@example.com"
    static let reason = "Ticket 4821: can't see invoices"
    static let ticket = "https://support.example/tickets/4821"

    /// A signed-up account and the path of its console page.
    private func account(_ gatehouse: TestGatehouse, _ staff: Browser) async throws -> String {
        _ = try await gatehouse.signedUpBrowser(Self.email, password: "correct horse battery")
        let list = try await staff.get("/_/users?q=viewed")
        return try #require(
            list.text.range(of: #"/_/users/[A-Za-z0-9]+"#, options: .regularExpression).map { String(list.text[$0]) })
    }

    private func started(_ gatehouse: TestGatehouse, _ token: String) async throws -> [[String: Any]] {
        let answer = try await gatehouse.script.call("GET", "/_/api/audit?type=impersonation.started", bearer: token)
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]], "\(answer.text)")
    }

    @Test func aRequiredReasonIsAskedShownInTheBannerAuditedAndSentToWebhooks() async throws {
        let gatehouse = try await TestGatehouse(verification: .none, impersonationReason: .required)
        let receiver = try WebhookReceiver()
        let token = try await gatehouse.adminToken()
        let added = try await WebhookDeliveryTests.addEndpoint(
            gatehouse, token: token, ["url": receiver.url, "events": ["impersonation.started"]])
        #expect(added.status == 201)
        let staff = try await gatehouse.staffBrowser()
        let userURL = try await account(gatehouse, staff)
        let form = try await staff.get(userURL)
        #expect(form.text.contains(#"name="reason" type="text" maxlength="500""#) && form.text.contains("required"))

        // Without a reason (a ticket link alone is no reason), or with a ticket "link" that would run
        // script in the banner: refused, nothing opened.
        for (reason, ticket, says) in [
            ("", "", "a reason is required"), ("", Self.ticket, "a reason is required"),
            (Self.reason, "javascript:alert(document.cookie)", "must be an http or https address")
        ] {
            let refused = try await staff.post(
                userURL + "/impersonate", [("duration", "15"), ("mode", "browser"), ("reason", reason), ("ticket", ticket)])
            #expect(refused.status == 400 && refused.text.contains(says), "\(refused.status)")
            #expect(try await staff.get("/account", follow: false).status == 303, "no impersonation started")
        }
        #expect(try await started(gatehouse, token).isEmpty)

        let opened = try await staff.post(
            userURL + "/impersonate",
            [("duration", "15"), ("mode", "browser"), ("reason", "  \(Self.reason) "), ("ticket", Self.ticket)])
        #expect(opened.header("Location") == "/account")
        for path in ["/account", "/account/security"] {
            let page = try await staff.get(path)
            #expect(page.text.contains("<span data-impersonation-reason>Reason: Ticket 4821: can&#39;t see invoices"), "\(path)")
            #expect(page.text.contains(#"<a class="impersonation__ticket" href="\#(Self.ticket)""#), "\(path)")
        }
        let events = try await started(gatehouse, token)
        let data = try #require(events.first?["data"] as? [String: Any])
        #expect(data["reason"] as? String == Self.reason && data["ticket"] as? String == Self.ticket, "\(data)")
        let audit = try await staff.get("/_/audit?type=impersonation.started")
        #expect(audit.text.contains("Ticket 4821: can&#39;t see invoices"), "the audit line says why")
        let hook = try #require(try await receiver.waitFor(1).first)
        #expect(hook.type == "impersonation.started")
        let details = try #require(hook.data["details"] as? [String: Any], "\(hook.data)")
        #expect(details["reason"] as? String == Self.reason && details["ticket"] as? String == Self.ticket, "\(details)")
        await gatehouse.stop()
    }

    @Test func theAPIsAskForTheReasonInTheirOwnShape() async throws {
        let gatehouse = try await TestGatehouse(verification: .none, impersonationReason: .required)
        let token = try await gatehouse.adminToken()
        let staff = try await gatehouse.staffBrowser()
        let id = String(try await account(gatehouse, staff).dropFirst("/_/users/".count))

        let bare = try await gatehouse.script.call("POST", "/_/api/users/\(id)/impersonate", ["duration": 60], bearer: token)
        #expect(bare.status == 400 && bare.text.contains("a reason is required"), "\(bare.text)")
        let given = try await gatehouse.script.call(
            "POST", "/_/api/users/\(id)/impersonate", ["duration": 60, "reason": Self.reason], bearer: token)
        #expect(given.status == 200, "\(given.text)")

        let pocketBase = try await gatehouse.pocketBaseSuperuserToken("api-staff@example.com")
        let refused = try await gatehouse.script.call(
            "POST", "/api/collections/users/impersonate/\(id)", ["duration": 60], token: pocketBase)
        #expect(
            refused.status == 400
                && refused.json["message"] as? String == "Say why you are opening this account (a reason is required).")
        #expect(refused.json["data"] is [String: Any], "PocketBase's error shape: \(refused.text)")
        let allowed = try await gatehouse.script.call(
            "POST", "/api/collections/users/impersonate/\(id)", ["duration": 60, "reason": Self.reason], token: pocketBase)
        #expect(allowed.status == 200, "\(allowed.text)")
        let reasons = try await started(gatehouse, token).compactMap { ($0["data"] as? [String: Any])?["reason"] as? String }
        #expect(reasons == [Self.reason, Self.reason])
        await gatehouse.stop()
    }

    /// Without the flag a reason may be left out, and the banner says nothing of one.
    @Test func anOptionalReasonMayBeLeftOutAndARefusedActStaysUnderTheBanner() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser()
        let userURL = try await account(gatehouse, staff)
        #expect(try await staff.get(userURL).text.contains("Reason (optional)"))
        let opened = try await staff.post(userURL + "/impersonate", [("duration", "15"), ("mode", "browser")])
        #expect(opened.header("Location") == "/account")
        let page = try await staff.get("/account/email")
        #expect(page.text.contains("Viewing as") && !page.text.contains("data-impersonation-reason"))

        // The forms are hidden, but a posted one is still refused: inside the page, with the banner's Stop.
        for (path, form) in [
            ("/account/email", [("email", "moved@example.com"), ("password", "correct horse battery")]),
            ("/account/sessions/sign-out-all", [])
        ] {
            let refused = try await staff.post(path, form)
            #expect(refused.status == 403, "\(path): \(refused.status)")
            #expect(refused.text.contains("Not while impersonating") && refused.text.contains("Stop impersonating"), "\(path)")
            #expect(refused.text.contains("user-nav__email"), "the person's own frame: \(path)")
        }
        await gatehouse.stop()
    }
}
