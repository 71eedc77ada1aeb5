import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// The Hub's Google, Apple and test-provider buttons and the plugin's `app-config` say the same:
/// only what Gatehouse can sign in with. A test-mode provider's round trip comes back to the Hub's
/// callback and ends in an FDI session.
@Suite(.stopsWhatItStarts) struct RowndHubProviderTests {
    /// The Hub's buttons (`data-hub-provider`, native or not) and `app-config`'s sign-in methods.
    private static func offered(_ gatehouse: OAuthGatehouse) async throws -> (buttons: [String], methods: [String: [String: Any]])
    {
        let page = try await HTTPTestClient(port: gatehouse.port).request("GET", "/rownd-hub/mobile_app?config=e30%3D")
        var buttons: [String] = []
        for part in page.text.components(separatedBy: "data-hub-provider=\"").dropFirst() {
            let name = String(part.prefix { $0 != "\"" })
            buttons.append(part.dropFirst(name.count + 1).hasPrefix(" data-hub-native") ? name + " (native)" : name)
        }
        let config = try await FDIScript(port: gatehouse.port).call("GET", "/auth/plugin/rownd/app-config")
        let hub = ((config.json["app"] as? [String: Any])?["config"] as? [String: Any])?["hub"] as? [String: Any]
        let auth = try #require(hub?["auth"] as? [String: Any], "\(config.json)")
        #expect(auth["use_explicit_sign_up_flow"] as? Bool == true, "the SDK passes the app's intent on")
        let methods = try #require(auth["sign_in_methods"] as? [String: [String: Any]])
        let schema = ((config.json["app"] as? [String: Any])?["schema"] as? [String: Any]) ?? [:]
        for (method, field) in [("google", "google_id"), ("apple", "apple_id")] {
            #expect((schema[field] != nil) == (methods[method]?["enabled"] as? Bool == true), "\(field) as the plugin adds it")
        }
        return (buttons, methods)
    }

    /// Nothing configured: email only, in the Hub and in `app-config`.
    @Test func withNoProvidersTheHubOffersEmailOnly() async throws {
        let gatehouse = try await OAuthGatehouse(appleAudiences: [])
        let (buttons, methods) = try await Self.offered(gatehouse)
        #expect(buttons.isEmpty)
        #expect(methods["email"]?["enabled"] as? Bool == true)
        #expect(methods["google"]?["enabled"] as? Bool == false && methods["apple"]?["enabled"] as? Bool == false)
    }

    /// Google and Apple ID-token audiences make native buttons (the SDK signs in and sends the
    /// token to the FDI), with the client ids `app-config` gives the SDK; a test-mode provider
    /// shows while the test provider is served.
    @Test func configuredProvidersShowInTheHubAndInAppConfig() async throws {
        let gatehouse = try await OAuthGatehouse(
            appleAudiences: ["com.example.app"], googleAudiences: ["1-ios.apps.googleusercontent.com"])
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let (buttons, methods) = try await Self.offered(gatehouse)
        #expect(buttons == ["google (native)", "apple (native)", "acme"])
        #expect(methods["google"]?["enabled"] as? Bool == true)
        #expect(methods["google"]?["ios_client_id"] as? String == "1-ios.apps.googleusercontent.com")
        #expect(methods["apple"]?["enabled"] as? Bool == true && methods["apple"]?["client_id"] as? String == "com.example.app")
    }

    /// The test provider sends codes to the Hub's callback (and not to another Hub page); the code
    /// spent through `signinup` as the Hub's page does opens an FDI session; the callback page is the Hub's.
    @Test func theTestProvidersRoundTripEndsAtTheHubsCallback() async throws {
        let gatehouse = try await OAuthGatehouse(appleAudiences: [])
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let app = FDIScript(port: gatehouse.port)
        let callback = gatehouse.base + "/rownd-hub/callback"
        func start(_ redirect: String) async throws -> (url: String, verifier: String) {
            let query = FormEncoding.encode([("thirdPartyId", "acme"), ("redirectURIOnProviderDashboard", redirect)])
            let started = try await app.call("GET", "/auth/authorisationurl?" + query, rid: "thirdparty")
            return (
                try #require(started.json["urlWithQueryParams"] as? String),
                try #require(started.json["pkceCodeVerifier"] as? String)
            )
        }
        let elsewhere = try await start(gatehouse.base + "/rownd-hub/other")
        #expect(try await gatehouse.browser().get(pathAndQuery(elsewhere.url) + "&state=s").status == 404)
        let (url, verifier) = try await start(callback)
        let target = try await gatehouse.testProviderReturn(
            pathAndQuery(url) + "&state=hub-state", choosing: [("action", "fixed-0")])
        #expect(target.hasPrefix(callback + "?"), "\(target)")
        let page = try await HTTPTestClient(port: gatehouse.port).request("GET", pathAndQuery(target))
        #expect(page.status == 200 && page.text.contains("data-callback"), "the Hub finishes the round trip")
        let info: [String: Any] = [
            "redirectURIOnProviderDashboard": callback, "pkceCodeVerifier": verifier,
            "redirectURIQueryParams": ["code": try #require(queryItem("code", in: target)), "state": "hub-state"]
        ]
        let signedIn = try await app.call(
            "POST", "/auth/signinup", ["thirdPartyId": "acme", "redirectURIInfo": info], rid: "thirdparty")
        #expect(signedIn.json["status"] as? String == "OK" && app.refreshToken != nil, "\(signedIn.json)")
    }
}
