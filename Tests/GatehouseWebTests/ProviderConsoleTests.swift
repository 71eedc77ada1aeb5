import Foundation
import HTTPTestClient
import Secrets
import Store
import TestScope
import Testing

/// `/_/providers`: providers and apps managed from the console, and the JSON API taking a superuser token.
@Suite(.stopsWhatItStarts) struct ProviderConsoleTests {
    private static let password = "staff-password-1"

    /// A gatehouse with a superuser, and a browser signed in to the console on the providers page.
    private func setUp() async throws -> (OAuthGatehouse, Browser) {
        let gatehouse = try await OAuthGatehouse()
        let staff = try await gatehouse.staffBrowser(password: Self.password)
        _ = try await staff.get("/_/providers")
        return (gatehouse, staff)
    }

    private func provider(
        _ name: String, mode: String = "test", clientId: String = "console-client",
        secret: String = ""
    ) -> [(String, String)] {
        [
            ("name", name), ("type", "oidc"), ("preset", ""), ("mode", mode), ("issuer", ""), ("authorizationURL", ""),
            ("tokenURL", ""), ("userInfoURL", ""), ("clientId", clientId), ("clientSecret", secret), ("scopes", "openid email")
        ]
    }

    @Test func theInsForgeAnonKeyIsShownWithTheApps() async throws {
        let (open, openStaff) = try await setUp()
        #expect(try await openStaff.get("/_/providers").text.contains("none set"))
        await open.stop()
        let keyed = try await OAuthGatehouse(anonKey: "anon_team_key_123")
        let staff = try await keyed.staffBrowser(password: Self.password)
        let page = try await staff.get("/_/providers")
        #expect(page.text.contains("<code>anon_team_key_123</code>"))
        await keyed.stop()
    }

    /// Issue 27: the Descope project id made at first start is shown where staff connect an app,
    /// and it is the one the Descope API answers for.
    @Test func connectAnAppShowsTheDescopeProjectIDTheAPIAnswersFor() async throws {
        let (gatehouse, staff) = try await setUp()
        let page = try await staff.get("/_/providers")
        #expect(page.text.contains("Connect an app") && page.text.contains("connection_uri"))
        let marker = "data-descope-project>"
        let start = try #require(page.text.range(of: marker)).upperBound
        let id = String(page.text[start...].prefix { $0 != "<" })
        #expect(id.count == 28 && id.hasPrefix("P"), "\(id)")
        let keys = try await HTTPTestClient(port: gatehouse.port).request("GET", "/v2/keys/\(id)")
        #expect(keys.status == 200)
        #expect(try await HTTPTestClient(port: gatehouse.port).request("GET", "/v2/keys/Pnot\(id.dropFirst(4))").status == 404)
        await gatehouse.stop()
    }

    @Test func aTestProviderAddedInTheConsoleShowsOnTheSignInPage() async throws {
        let (gatehouse, staff) = try await setUp()
        let added = try await staff.post("/_/providers", provider("acme", secret: "s3cret-never-shown"), follow: true)
        #expect(added.status == 200)
        #expect(added.text.contains("Provider added."))
        #expect(added.text.contains("acme"))
        #expect(added.text.contains("Test"))
        #expect(added.text.contains("console-client"))
        #expect(!added.text.contains("s3cret-never-shown"), "the page never shows a client secret")
        let signIn = try await gatehouse.browser().get("/auth/sign-in")
        #expect(signIn.text.contains("/auth/oauth/acme"))
        #expect(try await gatehouse.auditTypes().contains("provider.created"))
        let event = try #require(
            try await gatehouse.database.auditEvents(subject: nil, limit: 50).first { $0.type == "provider.created" })
        #expect(event.actor != nil, "audited with the superuser as actor")
        await gatehouse.stop()
    }

    @Test func aBadProviderComesBackWithItsErrorsAndTypedValues() async throws {
        let (gatehouse, staff) = try await setUp()
        var fields = provider("widgets", mode: "live", clientId: "", secret: "typed-secret-123")
        fields = fields.map { $0.0 == "authorizationURL" ? ($0.0, "ftp://nope") : $0 }
        let page = try await staff.post("/_/providers", fields)
        #expect(page.status == 422)
        #expect(page.text.contains("A client id is required."))
        #expect(page.text.contains("Use an http:// or https:// URL."))
        #expect(page.text.contains(#"value="widgets""#), "the typed name is kept")
        #expect(page.text.contains("ftp://nope"))
        #expect(!page.text.contains("typed-secret-123"), "the secret is not echoed back")
        #expect(try await gatehouse.database.provider(named: "widgets") == nil)
        await gatehouse.stop()
    }

    @Test func aPresetNamesTheProviderAndFillsItsEndpoints() async throws {
        let (gatehouse, staff) = try await setUp()
        var fields = provider("", mode: "live", clientId: "Iv1.abc", secret: "gh-secret")
        fields = fields.map { $0.0 == "preset" ? ($0.0, "github") : $0 }
        let added = try await staff.post("/_/providers", fields, follow: true)
        #expect(added.text.contains("Provider added."))
        #expect(added.text.contains("https://github.com/login/oauth/authorize"))
        #expect(try await gatehouse.database.provider(named: "github")?.type == "oauth2")
        var clash = provider("other", mode: "live", clientId: "x")
        clash = clash.map { $0.0 == "preset" ? ($0.0, "google") : $0 }
        let refused = try await staff.post("/_/providers", clash)
        #expect(refused.status == 422)
        #expect(refused.text.contains("A preset applies to a provider with its name"))
        await gatehouse.stop()
    }

    @Test func switchingModeAndDeletingNeedsTheTypedName() async throws {
        let (gatehouse, staff) = try await setUp()
        _ = try await staff.post("/_/providers", provider("acme"), follow: true)
        let switched = try await staff.post("/_/providers/acme/mode", [("mode", "live")], follow: true)
        #expect(switched.text.contains("Provider mode changed."))
        #expect(try await gatehouse.database.provider(named: "acme")?.mode == "live")
        let wrong = try await staff.post("/_/providers/acme/delete", [("confirm", "acm")])
        #expect(wrong.status == 422)
        #expect(
            wrong.text.contains("Type the provider&#39;s name exactly") || wrong.text.contains("Type the provider's name exactly")
        )
        #expect(try await gatehouse.database.provider(named: "acme") != nil)
        let right = try await staff.post("/_/providers/acme/delete", [("confirm", "acme")], follow: true)
        #expect(right.text.contains("Provider deleted."))
        #expect(try await gatehouse.database.provider(named: "acme") == nil)
        let types = try await gatehouse.auditTypes()
        #expect(types.contains("provider.mode_changed"))
        #expect(types.contains("provider.deleted"))
        await gatehouse.stop()
    }

    /// Issue 25, item 8: a provider is edited in place. Its name stays whatever the form says, a blank
    /// secret keeps the sealed one, and a bad change comes back with the typed values.
    @Test func aProviderIsEditedInPlaceKeepingItsNameAndSecret() async throws {
        let (gatehouse, staff) = try await setUp()
        _ = try await staff.post("/_/providers", provider("acme", secret: "s3cret-never-shown"), follow: true)
        #expect(try await gatehouse.database.provider(named: "acme")?.clientSecretSealed != nil)
        let list = try await staff.get("/_/providers")
        #expect(list.text.contains(#"href="/_/providers/acme/edit""#))
        let form = try await staff.get("/_/providers/acme/edit")
        #expect(form.status == 200)
        #expect(form.text.contains(#"value="console-client""#))
        #expect(form.text.contains(#"value="acme" readonly"#))
        #expect(!form.text.contains("s3cret-never-shown"))

        let change =
            provider("evil", mode: "live", clientId: "new-client").map {
                $0.0 == "issuer" ? ($0.0, "https://sso.acme.example") : $0
            }
            + [("displayName", "Acme SSO")]
        let saved = try await staff.post("/_/providers/acme/edit", change, follow: true)
        #expect(saved.text.contains("Provider saved."))
        let stored = try #require(try await gatehouse.database.provider(named: "acme"))
        #expect(stored.clientId == "new-client")
        #expect(stored.mode == "live")
        #expect(stored.displayName == "Acme SSO")
        #expect(stored.issuer == "https://sso.acme.example")
        #expect(stored.clientSecretSealed != nil, "a blank secret keeps the stored one")
        #expect(try await gatehouse.database.provider(named: "evil") == nil)
        let event = try #require(
            try await gatehouse.database.auditEvents(subject: nil, limit: 50).first { $0.type == "provider.updated" })
        #expect(event.actor != nil)

        let bad = try await staff.post("/_/providers/acme/edit", provider("acme", mode: "live", clientId: "typed-client"))
        #expect(bad.status == 422)
        #expect(bad.text.contains("An OIDC provider needs an issuer"))
        #expect(bad.text.contains(#"value="typed-client""#), "the typed values come back")
        #expect(try await gatehouse.database.provider(named: "acme")?.clientId == "new-client")
        #expect(try await staff.get("/_/providers/nobody/edit").status == 404)
        await gatehouse.stop()
    }

    @Test func aLegacyAppIsMarkedUnsafeAndDeletesWithItsId() async throws {
        let (gatehouse, staff) = try await setUp()
        let added = try await staff.post(
            "/_/providers/apps",
            [
                ("id", "notes"), ("name", "Notes"), ("callbackURLs", "notesapp://auth/callback\r\nhttps://notes.example.com/cb"),
                ("legacyCallback", "true")
            ], follow: true)
        #expect(added.text.contains("App registered."))
        #expect(added.text.contains("Unsafe: tokens in the callback URL"))
        #expect(added.text.contains("https://notes.example.com/cb"))
        #expect(
            try await gatehouse.database.app(id: "notes")?.callbackURLs == [
                "notesapp://auth/callback", "https://notes.example.com/cb"
            ])
        let bad = try await staff.post("/_/providers/apps", [("id", "empty"), ("name", "Empty"), ("callbackURLs", "")])
        #expect(bad.status == 422)
        #expect(bad.text.contains("Register at least one callback URL."))
        #expect(try await staff.post("/_/providers/apps/notes/delete", [("confirm", "nope")]).status == 422)
        let deleted = try await staff.post("/_/providers/apps/notes/delete", [("confirm", "notes")], follow: true)
        #expect(deleted.text.contains("App deleted."))
        #expect(try await gatehouse.database.app(id: "notes") == nil)
        let types = try await gatehouse.auditTypes()
        #expect(types.contains("app.created"))
        #expect(types.contains("app.deleted"))
        await gatehouse.stop()
    }

    @Test func anonymousVisitorsGoToTheConsoleSignIn() async throws {
        let gatehouse = try await OAuthGatehouse()
        let page = try await gatehouse.browser().get("/_/providers", follow: false)
        #expect(page.status == 303)
        #expect(page.header("Location")?.hasPrefix("/_/?redirect=") == true)
        await gatehouse.stop()
    }

    @Test func theJSONAPITakesASuperuserToken() async throws {
        let gatehouse = try await OAuthGatehouse()
        let token = try await gatehouse.adminToken(email: "api@example.com", password: Self.password)
        let client = HTTPTestClient(port: gatehouse.port)
        #expect(try await client.request("GET", "/_/api/providers").status == 401, "loopback alone is not enough")
        let withSuperuser = try await client.request("GET", "/_/api/providers", headers: [("Authorization", "Bearer \(token)")])
        #expect(withSuperuser.status == 200)
        let console = try await gatehouse.staffBrowser(email: "cookie@example.com")
        #expect(try await console.get("/_/api/apps").status == 401, "the console cookie is not a token")

        // The API's changes are audited under the same names the console uses, naming the superuser.
        let bearer = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        let created = try await client.request(
            "POST", "/_/api/providers", headers: bearer,
            body: Array(#"{"name":"audited","type":"oidc","mode":"test","clientId":"test"}"#.utf8))
        #expect(created.status == 201)
        #expect(try await client.request("DELETE", "/_/api/providers/audited", headers: bearer).status == 204)
        let types = try await gatehouse.database.auditEvents(AuditFilter(limit: 50)).map(\.type)
        #expect(types.contains("provider.created"))
        #expect(types.contains("provider.deleted"))
        await gatehouse.stop()
    }

    /// A second `POST` with the same app id or provider name replaces it: 200, audited as an
    /// update (not a second creation), the app's creation time kept.
    @Test func postingAnExistingOneReplacesItAndIsAuditedAsAnUpdate() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin("/_/api/apps", ["id": "notes", "name": "Notes", "callbackURLs": ["notesapp://cb"]])
        let created = try #require(try await gatehouse.database.app(id: "notes")).createdAt
        try await Task.sleep(for: .milliseconds(20))
        try await gatehouse.admin(
            "/_/api/apps", ["id": "notes", "name": "Notes 2", "callbackURLs": ["notesapp://cb2"]], expect: 200)
        let replaced = try #require(try await gatehouse.database.app(id: "notes"))
        #expect(replaced.name == "Notes 2" && replaced.callbackURLs == ["notesapp://cb2"] && replaced.createdAt == created)

        let provider: [String: Any] = ["name": "corp", "type": "oidc", "mode": "test", "clientId": "one"]
        try await gatehouse.admin("/_/api/providers", provider)
        try await gatehouse.admin("/_/api/providers", provider.merging(["clientId": "two"]) { _, new in new }, expect: 200)
        #expect(try await gatehouse.database.provider(named: "corp")?.clientId == "two")

        let types = try await gatehouse.auditTypes()
        #expect(types.filter { $0 == "app.created" }.count == 1 && types.filter { $0 == "app.updated" }.count == 1)
        #expect(types.filter { $0 == "provider.created" }.count == 1 && types.filter { $0 == "provider.updated" }.count == 1)
        await gatehouse.stop()
    }
}
