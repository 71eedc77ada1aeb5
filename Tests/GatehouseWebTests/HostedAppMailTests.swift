import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// Issue 49, item 4: mails a person asks for inside an app's sign-in flow carry the app's name in
/// subject and body and its logo atop the HTML; the same mails outside the flow stay Gatehouse's.
@Suite(.stopsWhatItStarts) struct HostedAppMailTests {
    static let callback = "notesapp://auth/callback"
    static let appItems = [
        ("redirect", callback), ("client_type", "mobile"), ("code_challenge", "s_Q54yNgcBaySEe6QUsb1fkEx4wWwRVes01GGCGjcLg")
    ]

    @Test func mailsAskedForInAnAppsFlowGoOutInItsName() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        try await gatehouse.admin(
            "/_/api/apps",
            [
                "id": "notes", "name": "Notes & Co", "callbackURLs": [Self.callback],
                "logoURL": "http://localhost:5173/logo.png"
            ])
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in?" + FormEncoding.encode(Self.appItems))
        // The app's sign-up link keeps its request (a plain sign-up page would end the flow).
        _ = try await browser.get("/auth/sign-up?" + FormEncoding.encode(Self.appItems))
        let signUp = try await browser.post(
            "/auth/sign-up", [("email", "app-mail@example.com"), ("password", "correct horse battery")] + Self.appItems)
        #expect(signUp.status == 303, "\(signUp.status)")
        let mail = try #require(try await gatehouse.mails(to: "app-mail@example.com").first)
        #expect(mail["subject"] as? String == "Your Notes & Co verification code", "\(mail["subject"] ?? "")")
        #expect((mail["text"] as? String)?.contains("Your Notes & Co verification code is") == true)
        let html = try #require(mail["html"] as? String)
        #expect(html.contains(#"<img src="http://localhost:5173/logo.png" alt="Notes &amp; Co""#), "\(html)")
        #expect(html.contains("Your Notes &amp; Co verification code is") && !html.contains("Gatehouse"), "\(html)")

        // Outside the flow, the same mail is Gatehouse's.
        let plain = gatehouse.browser()
        _ = try await plain.get("/auth/sign-up")
        _ = try await plain.post("/auth/sign-up", [("email", "plain-mail@example.com"), ("password", "correct horse battery")])
        let own = try #require(try await gatehouse.mails(to: "plain-mail@example.com").first)
        #expect(own["subject"] as? String == "Your Gatehouse verification code")
        #expect((own["html"] as? String)?.contains("<img") == false)
        await gatehouse.stop()
    }
}
