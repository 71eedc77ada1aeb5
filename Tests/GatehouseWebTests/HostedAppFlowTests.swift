import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// The app's request carried through Gatehouse's pages (issue 25, item 1): "Continue as …" for a
/// browser that is already signed in, and `/auth/app/return`, which checks the callback against the
/// app's registered URLs when it hands out the code, not when the flow began.
@Suite(.stopsWhatItStarts) struct HostedAppFlowTests {
    /// `PKCE.challenge(for: "flow-verifier-0123456789-abcdefghijklmnopqrstuvwxyz")`, computed once outside Swift.
    static let challenge = "s_Q54yNgcBaySEe6QUsb1fkEx4wWwRVes01GGCGjcLg"
    static let callback = "notesapp://auth/callback"
    static let appItems = [("redirect", callback), ("client_type", "mobile"), ("code_challenge", challenge)]

    private func setUp() async throws -> OAuthGatehouse {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin(
            "/_/api/apps", ["id": "notes", "name": "Notes app", "callbackURLs": [Self.callback], "accentColor": "#0f766e"])
        return gatehouse
    }

    @Test func aSignedInBrowserContinuesAsItsAccountOrSignsOutForAnother() async throws {
        let gatehouse = try await setUp()
        let browser = gatehouse.browser()
        try await gatehouse.signUp(browser, email: "kept@example.com")
        let page = try await browser.get("/auth/sign-in?" + FormEncoding.encode(Self.appItems))
        #expect(page.status == 200)
        #expect(page.text.contains("Sign in to Notes app") && page.text.contains("Continue as kept@example.com"))
        #expect(page.text.contains(#"href="/auth/app-theme.css?accent=0f766e""#))
        let continued = try await browser.post("/auth/app/continue", Self.appItems)
        #expect(try #require(continued.header("Location")).hasPrefix(Self.callback + "?insforge_code="))

        let another = try await browser.post(
            "/auth/sign-out", [("redirect", "/auth/sign-in?" + FormEncoding.encode(Self.appItems))])
        let form = try await browser.get(try #require(another.header("Location")))
        #expect(form.text.contains("Sign in to Notes app") && !form.text.contains("Continue as"))
        await gatehouse.stop()
    }

    @Test func everyPageOnTheWayIsTheAppsUntilThePersonGoesOnWithoutIt() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin(
            "/_/api/apps",
            [
                "id": "notes", "name": "Notes app", "callbackURLs": [Self.callback], "accentColor": "#0f766e",
                "logoURL": "http://localhost:5173/logo.png"
            ])
        let browser = gatehouse.browser()
        let hosted = try await browser.get("/auth/sign-in?" + FormEncoding.encode(Self.appItems))
        #expect(hosted.text.contains("app-branded") && !hosted.text.contains(#"class="site-header""#))
        // Forgot password, verification, a second step: the app's colours and logo, not Gatehouse's header.
        for path in ["/auth/forgot-password", "/auth/verify?email=someone%40example.com", "/auth/resend-verification"] {
            let page = try await browser.get(path)
            #expect(page.status == 200, "\(path)")
            #expect(page.text.contains(#"<body class="page-default app-branded">"#), "\(path)")
            #expect(page.text.contains(#"href="/auth/app-theme.css?accent=0f766e""#), "\(path)")
            #expect(page.text.contains(#"src="http://localhost:5173/logo.png" alt="Notes app""#), "\(path)")
            #expect(!page.text.contains(#"class="site-header""#), "\(path)")
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("img-src 'self' http://localhost:5173"), "the logo may load: \(policy)")
            // Its way back to signing in keeps the app's request: a plain sign-in page would end the flow.
            let back = #"href="/auth/sign-in?redirect=notesapp%3A%2F%2Fauth%2Fcallback&amp;client_type=mobile"#
            #expect(page.text.contains(back), "\(path)")
        }
        let verify = try await browser.get("/auth/verify?email=someone%40example.com")
        #expect(verify.text.contains(#"href="/auth/sign-up?redirect=notesapp%3A%2F%2Fauth%2Fcallback&amp;"#), "Start over")
        // A plain sign-in page ends the flow: Gatehouse's own pages again.
        let plain = try await browser.get("/auth/sign-in")
        #expect(!plain.text.contains("app-branded") && plain.text.contains(#"class="site-header""#))
        let after = try await browser.get("/auth/forgot-password")
        #expect(!after.text.contains("app-branded") && after.text.contains(#"class="site-header""#))
        #expect(after.text.contains(#"href="/auth/sign-in""#))
        #expect(after.header("Content-Security-Policy")?.contains("localhost:5173") != true)
        await gatehouse.stop()
    }

    /// A superuser viewing the pages as someone cannot take "Continue as …" on an app's page: the
    /// app would get the person's own refreshable session, outliving the impersonation.
    @Test func anImpersonationHandsNoAppASession() async throws {
        let gatehouse = try await setUp()
        try await gatehouse.signUp(gatehouse.browser(), email: "viewed@example.com")
        let userID = try #require(try await gatehouse.database.user(email: "viewed@example.com")?.id)
        let staff = try await gatehouse.staffBrowser()
        _ = try await staff.get("/_/users/\(userID.rawValue)")
        let opened = try await staff.post("/_/users/\(userID.rawValue)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(opened.header("Location") == "/account")

        let page = try await staff.get("/auth/sign-in?" + FormEncoding.encode(Self.appItems))
        #expect(page.status == 403 && page.text.contains("Stop impersonating first"))
        #expect(!page.text.contains("Continue as"))
        let taken = try await staff.post("/auth/app/continue", Self.appItems)
        #expect(taken.status == 403 && taken.header("Location") == nil)
        #expect(try await !gatehouse.auditTypes().contains("app.code_issued"))
        await gatehouse.stop()
    }

    @Test func signUpStartedOnTheAppsPageStaysTheAppsAndLandsOnTheReturn() async throws {
        let gatehouse = try await setUp()
        let browser = gatehouse.browser()
        let page = try await browser.get("/auth/sign-up?" + FormEncoding.encode(Self.appItems))
        #expect(page.text.contains("Create your Notes app account"))
        let refused = try await browser.post("/auth/sign-up", [("email", "not-an-address"), ("password", "quiet-otter-123")])
        #expect(refused.status == 422 && refused.text.contains("Create your Notes app account"), "errors keep the app's page")
        let created = try await browser.post("/auth/sign-up", [("email", "new@example.com"), ("password", "quiet-otter-123")])
        #expect(created.header("Location") == "/auth/app/return")
        let back = try await browser.get("/auth/app/return", follow: false)
        #expect(back.text.contains(#"href="notesapp://auth/callback?insforge_code="#))
        // Signed in now: the app's sign-up link goes to its page, which offers "Continue as …".
        let again = try await browser.get("/auth/sign-up?" + FormEncoding.encode(Self.appItems), follow: false)
        #expect(again.header("Location")?.hasPrefix("/auth/sign-in?redirect=notesapp") == true)
        await gatehouse.stop()
    }

    @Test func aVerificationLinkLeadsBackToTheAppsPageAndOnToTheApp() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .link)
        try await gatehouse.admin("/_/api/apps", ["id": "notes", "name": "Notes app", "callbackURLs": [Self.callback]])
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up?" + FormEncoding.encode(Self.appItems))
        _ = try await browser.post("/auth/sign-up", [("email", "linked@example.com"), ("password", "quiet-otter-123")])
        let mails = try await HTTPTestClient(port: gatehouse.port).request("GET", "/_/api/mailbox?to=linked%40example.com")
        let list = try JSONSerialization.jsonObject(with: Data(mails.body)) as? [[String: Any]]
        let mail = try #require(list?.first)
        let address = try #require(mail["link"] as? String)
        let link = try #require(URLComponents(string: address))

        // The link verifies but does not sign in (mail scanners open links); it leads on to the app.
        let opened = try await browser.get(link.path + "?" + (link.percentEncodedQuery ?? ""))
        #expect(opened.text.contains("Your email is verified") && opened.text.contains(#"href="/auth/app/return""#))
        let toPage = try await browser.get("/auth/app/return", follow: false)
        #expect(toPage.header("Location")?.hasPrefix("/auth/sign-in?" + FormEncoding.encode(Self.appItems)) == true)
        let done = try await browser.post(
            "/auth/sign-in", [("email", "linked@example.com"), ("password", "quiet-otter-123")] + Self.appItems)
        #expect(try #require(done.header("Location")).hasPrefix(Self.callback + "?insforge_code="))
        await gatehouse.stop()
    }

    @Test func theReturnChecksTheCallbackWhenItHandsOutTheCode() async throws {
        let gatehouse = try await setUp()
        try await gatehouse.signUp(gatehouse.browser(), email: "later@example.com")
        /// A browser that opened the app's page and then signed in (a plain form, as the passwordless
        /// and reset pages end): its app flow is pending.
        func signedInFromTheAppPage() async throws -> Browser {
            let browser = gatehouse.browser()
            _ = try await browser.get("/auth/sign-in?" + FormEncoding.encode(Self.appItems))
            let signedIn = try await browser.post(
                "/auth/sign-in", [("email", "later@example.com"), ("password", "correct horse battery")])
            #expect(signedIn.status == 303)
            return browser
        }
        let back = try await signedInFromTheAppPage().get("/auth/app/return", follow: false)
        #expect(back.status == 200 && back.text.contains(#"href="notesapp://auth/callback?insforge_code="#))
        #expect(back.text.contains("data-follow"), "the page's script follows the link")

        // The app's callback is unregistered while a sign-in is under way: no code goes there.
        let pending = try await signedInFromTheAppPage()
        try await gatehouse.admin(
            "/_/api/apps", ["id": "notes", "name": "Notes app", "callbackURLs": ["notesapp://other"]], expect: 200)
        let refused = try await pending.get("/auth/app/return", follow: false)
        #expect(refused.status == 400 && refused.text.contains("not registered"))
        #expect(!refused.text.contains("insforge_code"))
        await gatehouse.stop()
    }

    @Test func aReturnWithoutAFlowOrWithAForgedOneGoesNowhereNear() async throws {
        let gatehouse = try await setUp()
        let none = try await gatehouse.browser().get("/auth/app/return", follow: false)
        #expect(none.header("Location") == "/auth/sign-in")
        let forged = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/auth/app/return", headers: [("Cookie", "gh_app=eyJzdGFydGVkIjoxfQ.00")])
        #expect(forged.header("Location") == "/auth/sign-in")
        #expect(forged.header("Set-Cookie")?.hasPrefix("gh_app=;") == true, "the forged cookie is cleared")
        await gatehouse.stop()
    }

    @Test func theConsoleEditsAnAppsBrandingWithAFramedPreview() async throws {
        let gatehouse = try await setUp()
        let staff = try await gatehouse.staffBrowser()
        let form = try await staff.get("/_/providers/apps/notes/edit")
        #expect(form.status == 200 && form.text.contains(##"value="#0f766e""##))
        #expect(form.text.contains(#"src="/_/app-preview?name=Notes%20app&amp;accentColor=%230f766e""#))

        let refused = try await staff.post(
            "/_/providers/apps/notes/edit",
            [
                ("name", "Notes app"), ("callbackURLs", Self.callback), ("accentColor", "teal"),
                ("logoURL", "http://cdn.example/l.png")
            ])
        #expect(
            refused.status == 422 && refused.text.contains("Use a colour like")
                && refused.text.contains("http:// only on localhost"))
        let saved = try await staff.post(
            "/_/providers/apps/notes/edit",
            [
                ("name", "Notes Pro"), ("callbackURLs", Self.callback), ("accentColor", "#C2410C"),
                ("termsURL", "https://notes.example/t")
            ])
        #expect(saved.header("Location") == "/_/providers?notice=app-updated")
        let apps = try await gatehouse.adminGet("/_/api/apps")
        #expect(apps.text.contains(##""accentColor":"#c2410c""##) && apps.text.contains(#""name":"Notes Pro""#))
        #expect(try await gatehouse.auditTypes().contains("app.updated"))

        let preview = try await staff.get("/_/app-preview?name=Notes%20Pro&accentColor=%23c2410c")
        #expect(preview.status == 200 && preview.text.contains("Sign in to Notes Pro") && preview.text.contains(" inert"))
        #expect(preview.header("Content-Security-Policy")?.contains("frame-ancestors 'self'") == true)
        #expect(preview.header("X-Frame-Options") == "SAMEORIGIN")
        #expect(try await gatehouse.browser().get("/_/app-preview", follow: false).status != 200, "staff only")
        await gatehouse.stop()
    }
}
