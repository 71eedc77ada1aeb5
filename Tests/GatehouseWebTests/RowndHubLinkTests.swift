import Foundation
import GatehouseWeb
import HTTPTestClient
import TestScope
import Testing

/// The Rownd Hub's magic link and where the Hub sends people on: the link the Hub's code request
/// mails opens the Hub's link page at the SDK's deep-link path, which hands on to the configured
/// app scheme only; a request never names where a link or a redirect goes.
@Suite(.stopsWhatItStarts) struct RowndHubLinkTests {
    /// `signinup/code` as the Hub sends it (the Rownd plugin's display context), and the link mailed.
    private static func hubCode(_ app: FDIScript, _ gatehouse: TestGatehouse, _ email: String, query: String = "")
        async throws -> (status: Int, json: [String: Any], link: String?)
    {
        let answer = try await app.call(
            "POST", "/auth/signinup/code?rownd_display_context=mobile_app" + query, ["email": email], rid: "passwordless")
        let link = try await gatehouse.mails(to: email).compactMap { $0["link"] as? String }.first { $0.contains("#") }
        return (answer.status, answer.json, link)
    }

    /// The Hub's request mails a link to the Hub's own page at `/account/login` (the path the SDK
    /// maps `{scheme}://account/login` to), which spends once through the FDI's `consume`; an
    /// SDK that names no display context still gets the website's link.
    @Test func theHubsCodeRequestMailsALinkToItsLinkPage() async throws {
        let gatehouse = try await TestGatehouse()
        let app = FDIScript(gatehouse)
        let (_, json, mailed) = try await Self.hubCode(app, gatehouse, "noa@example.com")
        #expect(json["flowType"] as? String == "USER_INPUT_CODE_AND_MAGIC_LINK", "\(json)")
        let link = try #require(mailed, "a link is mailed beside the code")
        let flow = try #require(json["preAuthSessionId"] as? String)
        #expect(
            link.hasPrefix("http://127.0.0.1:\(gatehouse.port)/account/login?preAuthSessionId=\(flow)&tenantId=public#"),
            "\(link)")
        let page = try await HTTPTestClient(port: gatehouse.port).request("GET", pathAndQuery(link))
        #expect(page.status == 200 && page.text.contains(#"id="rownd-hub-link""#), "\(page.status)")
        #expect(
            page.text.contains("data-app-link=\"rowndsupertokens://account/login?preAuthSessionId=\(flow)&amp;tenantId=public\""))
        let body = ["preAuthSessionId": flow, "linkCode": try #require(URLComponents(string: link)?.fragment)]
        let webView = FDIScript(gatehouse)
        let opened = try await webView.call("POST", "/auth/signinup/code/consume", body, rid: "passwordless")
        #expect(opened.json["status"] as? String == "OK" && webView.refreshToken != nil, "\(opened.json)")
        let again = try await FDIScript(gatehouse).call("POST", "/auth/signinup/code/consume", body, rid: "passwordless")
        #expect(again.json["status"] as? String == "RESTART_FLOW_ERROR", "a link opens once")

        _ = try await app.call("POST", "/auth/signinup/code", ["email": "website@example.com"], rid: "passwordless")
        let website = try await gatehouse.mails(to: "website@example.com").compactMap { $0["link"] as? String }.first {
            $0.contains("#")
        }
        #expect(website?.hasPrefix(TestGatehouse.superTokensAppOrigin + "/auth/verify?") == true, "\(website ?? "none")")
    }

    /// Attack: a code request that names where its link should open (the plugin's
    /// `rownd_client_domain` as a URL or a scheme) is refused, and nothing is mailed.
    @Test func aRequestNamingWhereItsLinkGoesIsRefused() async throws {
        let gatehouse = try await TestGatehouse()
        for (index, domain) in ["https://evil.example", "evil://", "attacker"].enumerated() {
            let email = "victim\(index)@example.com"
            let query = "&rownd_client_domain=" + (domain.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            let (status, json, _) = try await Self.hubCode(FDIScript(gatehouse), gatehouse, email, query: query)
            #expect(status == 400 && (json["message"] as? String)?.contains("Unknown clientDomain") == true, "\(domain): \(json)")
            #expect(try await gatehouse.mails(to: email).isEmpty, "\(domain): nothing is mailed")
        }
    }

    /// Attack: the link page hands on to the configured scheme, with only the flow's id; whatever
    /// else the address carries (a scheme, a redirect, another tenant) is not followed.
    @Test func theLinkPageHandsOnToTheConfiguredSchemeOnly() async throws {
        let gatehouse = try await OAuthGatehouse { $0.rowndAppScheme = "myapp" }
        let client = HTTPTestClient(port: gatehouse.port)
        let forged = try await client.request(
            "GET", "/account/login?preAuthSessionId=abc&tenantId=evil&scheme=evil&redirect=https%3A%2F%2Fevil.example%2F")
        #expect(forged.status == 200)
        #expect(forged.text.contains(#"data-app-link="myapp://account/login?preAuthSessionId=abc&amp;tenantId=public""#))
        #expect(!forged.text.contains("evil"), "nothing of the forged address is on the page")
        let injected = try await client.request("GET", "/account/login?preAuthSessionId=a%26next%3Devil%3A%2F%2Fx")
        #expect(injected.text.contains("myapp://account/login?preAuthSessionId=a%26next%3Devil%3A%2F%2Fx&amp;tenantId=public"))
        #expect(try await client.request("GET", "/account/login").status == 400, "no flow, no page")
    }

    /// Attack: the post-sign-in redirect (`post_login_redirect`) goes to the app's scheme or a
    /// configured frontend's page, and nowhere else.
    @Test func thePostSignInRedirectGoesOnlyWhereTheAppIsSetUpFor() async throws {
        let gatehouse = try await OAuthGatehouse {
            $0.rowndAppScheme = "myapp"
            $0.superTokensAppOrigins = ["https://app.example"]
        }
        let client = HTTPTestClient(port: gatehouse.port)
        func go(_ target: String) async throws -> TestResponse {
            try await client.request(
                "GET", "/rownd-hub/continue?to=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        }
        for allowed in ["myapp://welcome", "https://app.example/home?tab=1"] {
            let response = try await go(allowed)
            #expect(response.status == 303 && response.header("Location") == allowed, "\(allowed): \(response.status)")
        }
        let refused = [
            "https://evil.example/", "evil://welcome", "javascript:alert(1)", "//evil.example",
            "https://app.example.evil.example/",
            "https://user@app.example/", "myapp:welcome", "https://app.example/#token", ""
        ]
        for target in refused {
            let response = try await go(target)
            #expect(response.status == 400 && response.header("Location") == nil, "\(target): \(response.status)")
        }
        #expect(try await client.request("GET", "/rownd-hub/continue").status == 400)
    }

    /// `--rownd-app-scheme` takes an app's own scheme, never the web's or a dangerous one.
    @Test func theAppSchemeMustBeAnAppsOwn() {
        #expect(WebConfiguration.rowndAppSchemeProblem("myapp") == nil)
        #expect(WebConfiguration.rowndAppSchemeProblem("com.example.app") == nil)
        for bad in ["https", "http", "javascript", "data", "MyApp", "myapp://", "my app", ""] {
            #expect(WebConfiguration.rowndAppSchemeProblem(bad) != nil, "\(bad)")
        }
    }
}
