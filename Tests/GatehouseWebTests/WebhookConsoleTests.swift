import Foundation
import HTTPTestClient
import Testing

/// The console's webhooks as staff use them: add an endpoint (a loopback one only), read its
/// secret, send a test event the receiver can verify, see the delivery with its request and
/// answer in the inspector, replay it under the same `webhook-id`, rotate, disable and delete.
@Suite(.stopsWhatItStarts) struct WebhookConsoleTests {
    @Test func staffAddInspectTestReplayAndDeleteAnEndpoint() async throws {
        let gatehouse = try await TestGatehouse()
        let receiver = try WebhookReceiver()
        let staff = try await gatehouse.staffBrowser()

        let remote = try await staff.post("/_/webhooks", [("url", "http://example.com/hook"), ("events", "")])
        #expect(remote.status == 422 && remote.text.contains("--webhook-any-host"))

        let added = try await staff.post("/_/webhooks", [("url", receiver.url), ("events", "user.created, user.deleted")])
        #expect(added.status == 303)
        let location = try #require(added.header("Location"))
        let inspector = try await staff.get(location)
        #expect(inspector.status == 200 && inspector.text.contains("user.created, user.deleted"))
        let secret = try #require(
            inspector.text.firstMatch(of: /data-webhook-secret>(whsec_[A-Za-z0-9+\/=]+)</).map { String($0.1) })

        #expect(try await staff.post(location + "/test", [("type", "mfa.enabled")]).status == 303)
        let test = try #require(try await receiver.waitFor(1).first)
        #expect(test.type == "mfa.enabled" && test.data["test"] as? Bool == true && test.data["wayIn"] as? String == "console")
        #expect(WebhookReceiver.verifies(test, secret: secret))
        try await Task.sleep(for: .milliseconds(100))
        let shown = try await staff.get(location)
        #expect(shown.text.contains("Try 1: 200") && shown.text.contains(test.id ?? "no id"))

        let replay = try #require(shown.text.firstMatch(of: /action="(\/_\/webhooks\/[^"]+\/replay)"/).map { String($0.1) })
        #expect(try await staff.post(replay, []).status == 303)
        let again = try await receiver.waitFor(2)
        #expect(again[1].id == test.id && again[1].body == test.body)

        #expect(try await staff.post(location + "/rotate", []).status == 303)
        #expect(try await staff.get(location).text.contains("The previous secret also signs until"))
        #expect(try await staff.post(location + "/disable", []).status == 303)
        #expect(try await staff.get("/_/webhooks").text.contains("Disabled"))
        #expect(try await staff.post(location + "/delete", []).status == 303)
        #expect(try await staff.get(location, follow: false).status == 404)
    }
}

extension WebhookConsoleTests {
    @Test func theBuiltInBinShowsWhatArrivedWithItsSignatureChecked() async throws {
        let gatehouse = try await TestGatehouse()
        let staff = try await gatehouse.staffBrowser()
        let bin = "http://127.0.0.1:\(gatehouse.port)/_/webhooks/bin/demo"
        let added = try await staff.post("/_/webhooks", [("url", bin), ("events", "")])
        let location = try #require(added.header("Location"))
        #expect(try await staff.post(location + "/test", [("type", "passkey.added")]).status == 303)
        // A forged request: signed with another secret.
        let forged = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/webhooks/bin/demo",
            headers: [
                ("webhook-id", "msg_forged"), ("webhook-timestamp", String(Int(Date().timeIntervalSince1970))),
                ("webhook-signature", "v1,bm90IGEgc2lnbmF0dXJlIGF0IGFsbCwgbm90IG9uZQ=="), ("Content-Type", "application/json")
            ], body: Array(#"{"type":"user.deleted","timestamp":"x","data":{}}"#.utf8))
        #expect(forged.status == 204)
        var page = try await staff.get("/_/webhooks/bin/demo")
        let deadline = Date().addingTimeInterval(5)
        while !page.text.contains("passkey.added"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            page = try await staff.get("/_/webhooks/bin/demo")
        }
        let rows = page.text.components(separatedBy: "<tr data-arrival>").dropFirst()
        #expect(rows.count == 2)
        #expect(rows.contains { $0.contains("passkey.added") && $0.contains("Verified") })
        #expect(rows.contains { $0.contains("user.deleted") && $0.contains("Does not match") })
        #expect(page.header("Refresh") == "5")
    }
}
