import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The FDI shares `/auth` with the account pages (`signin` beside `sign-in`): each path reaches
/// its own handler. Also what an app's own API and a browser app need from it: the keys, the
/// discovery document, the login methods, CORS for the configured origin only.
@Suite(.stopsWhatItStarts) struct SuperTokensFDIRouteTests {
    /// Every FDI route, as the SDKs call them.
    static let fdiRoutes: [(String, String)] = [
        ("POST", "/signup"), ("POST", "/signin"), ("GET", "/emailpassword/email/exists?email=a%40b.example"),
        ("POST", "/user/password/reset/token"), ("POST", "/user/password/reset"), ("POST", "/session/refresh"),
        ("POST", "/signout"), ("POST", "/user/email/verify/token"), ("POST", "/user/email/verify"),
        ("GET", "/user/email/verify"), ("GET", "/loginmethods"), ("GET", "/jwt/jwks.json"),
        ("GET", "/.well-known/openid-configuration"), ("POST", "/signinup/code"), ("POST", "/signinup/code/resend"),
        ("POST", "/signinup/code/consume"), ("GET", "/passwordless/email/exists?email=a%40b.example")
    ]
    /// Every page under `/auth` a browser opens, and the forms it posts.
    static let pageRoutes: [(String, String)] = [
        ("GET", "/auth/sign-in"), ("GET", "/auth/sign-up"), ("GET", "/auth/forgot-password"), ("GET", "/auth/reset-password"),
        ("GET", "/auth/verify"), ("GET", "/auth/verify-link"), ("GET", "/auth/sign-in/code"), ("GET", "/auth/magic"),
        ("GET", "/auth/mfa"), ("GET", "/auth/not-me"), ("GET", "/auth/confirm-email"), ("GET", "/auth/resend-verification"),
        ("POST", "/auth/sign-in"), ("POST", "/auth/sign-up"), ("POST", "/auth/sign-out"), ("POST", "/auth/verify")
    ]

    @Test func everyFDIPathAndEveryPagePathReachItsOwnHandler() async throws {
        let gatehouse = try await TestGatehouse()
        let client = HTTPTestClient(port: gatehouse.port)
        for (method, path) in Self.fdiRoutes {
            for prefix in ["/auth", "/auth/public"] {
                let response = try await client.request(
                    method, prefix + path, headers: [("Content-Type", "application/json"), ("rid", "session")],
                    body: method == "POST" ? Array("{}".utf8) : [])
                #expect(![404, 405].contains(response.status), "\(method) \(prefix + path): \(response.status)")
                #expect(
                    response.header("Content-Type")?.hasPrefix("application/json") == true,
                    "\(method) \(prefix + path) is the FDI's")
            }
        }
        for (method, path) in Self.pageRoutes {
            let response = try await client.request(method, path)
            #expect(![404, 405].contains(response.status), "\(method) \(path): \(response.status)")
            #expect(
                response.header("Content-Type")?.hasPrefix("application/json") != true,
                "\(method) \(path) is a page's: \(response.text)")
        }
    }

    /// What an app's API reads to check access tokens itself: both key ids, and the discovery
    /// document naming them; and the login methods the frontend draws.
    @Test func keysDiscoveryAndLoginMethods() async throws {
        let gatehouse = try await TestGatehouse()
        let app = FDIScript(gatehouse)
        let jwks = try await app.call("GET", "/auth/jwt/jwks.json", rid: nil)
        let kids = (jwks.json["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String }
        #expect(kids.contains { $0.hasPrefix("d-") } && kids.contains { $0.hasPrefix("s-") }, "\(jwks.json)")
        let discovery = try await app.call("GET", "/auth/.well-known/openid-configuration", rid: nil)
        #expect((discovery.json["jwks_uri"] as? String)?.hasSuffix("/auth/jwt/jwks.json") == true, "\(discovery.json)")
        let methods = try await app.call("GET", "/auth/loginmethods?tenantId=public", rid: "multitenancy")
        #expect((methods.json["emailPassword"] as? [String: Any])?["enabled"] as? Bool == true)
        #expect(methods.json["firstFactors"] as? [String] == ["emailpassword", "otp-email", "link-email"], "\(methods.json)")
    }

    /// A browser app at the configured origin gets its preflight and credentialed answers; any
    /// other origin gets no CORS headers, so the browser keeps the answer from it.
    @Test func corsForTheConfiguredAppOriginOnly() async throws {
        let gatehouse = try await TestGatehouse()
        let client = HTTPTestClient(port: gatehouse.port)
        let preflight = try await client.request(
            "OPTIONS", "/auth/signin",
            headers: [("Origin", TestGatehouse.superTokensAppOrigin), ("Access-Control-Request-Method", "POST")])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == TestGatehouse.superTokensAppOrigin)
        #expect(preflight.header("Access-Control-Allow-Credentials") == "true")
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("st-auth-mode") == true)
        let stranger = try await client.request(
            "OPTIONS", "/auth/signin", headers: [("Origin", "http://evil.example"), ("Access-Control-Request-Method", "POST")])
        #expect(stranger.header("Access-Control-Allow-Origin") == nil)
        let answer = try await client.request(
            "GET", "/auth/loginmethods", headers: [("Origin", TestGatehouse.superTokensAppOrigin)])
        #expect(answer.header("Access-Control-Allow-Origin") == TestGatehouse.superTokensAppOrigin)
        let strangerGet = try await client.request("GET", "/auth/loginmethods", headers: [("Origin", "http://evil.example")])
        #expect(strangerGet.header("Access-Control-Allow-Origin") == nil)
    }
}
