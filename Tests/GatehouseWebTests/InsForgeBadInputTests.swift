import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Bad input on every `/api/auth` route — unreadable bodies, wrong types, missing fields, huge
/// values, bad, expired and reused tokens — answers 4xx in InsForge's envelope
/// `{error, message, statusCode}` and never a 5xx. One table, every route.
@Suite(.stopsWhatItStarts) struct InsForgeBadInputTests {
    /// A route and the JSON fields it reads.
    struct Route {
        var method: String
        var path: String
        var fields: [String]
        /// Answers 2xx or 3xx whatever it is sent (logout; the links that hand over to a page).
        var alwaysAnswers = false
    }

    static let bodyRoutes: [Route] = [
        Route(method: "POST", path: "/api/auth/users", fields: ["email", "password", "name"]),
        Route(method: "POST", path: "/api/auth/sessions", fields: ["email", "password", "method", "otp"]),
        Route(method: "POST", path: "/api/auth/email/send-verification", fields: ["email"]),
        Route(method: "POST", path: "/api/auth/email/verify", fields: ["email", "otp"]),
        Route(method: "POST", path: "/api/auth/email/send-otp", fields: ["email"]),
        Route(method: "POST", path: "/api/auth/email/send-reset-password", fields: ["email"]),
        Route(method: "POST", path: "/api/auth/email/exchange-reset-password-token", fields: ["email", "code"]),
        Route(method: "POST", path: "/api/auth/email/reset-password", fields: ["otp", "newPassword"]),
        Route(method: "PATCH", path: "/api/auth/profiles/current", fields: ["profile"]),
        Route(method: "POST", path: "/api/auth/refresh", fields: ["refreshToken", "refresh_token"]),
        Route(method: "POST", path: "/api/auth/logout", fields: [], alwaysAnswers: true),
        Route(method: "POST", path: "/api/auth/oauth/exchange", fields: ["code", "code_verifier"]),
        Route(method: "POST", path: "/api/auth/id-token", fields: ["provider", "token", "nonce", "name"]),
        Route(method: "POST", path: "/api/auth/apple/native", fields: ["identityToken", "nonce", "authorizationCode", "user"]),
        Route(method: "DELETE", path: "/api/auth/users", fields: ["userIds"])
    ]

    static let huge = String(repeating: "a", count: 200_000)

    /// Bodies no route can use: unreadable, not an object, nested past any sense.
    static let rawBodies: [String] = [
        "not json", "{", "[]", "\"text\"", "null", "123", "{\"email\" \"a@b.c\"}", "{\"email\": \"a@b.c\"",
        String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000),
        "{\"email\": " + String(repeating: "{\"a\": ", count: 3000) + "1" + String(repeating: "}", count: 3000) + "}",
        "{\"email\": \"\\ud800\"}"
    ]

    /// Values of the wrong type (or absurd size) for any field.
    static var wrongValues: [Any] { [5, true, [Any](), [String: Any](), NSNull(), huge, -1e308, ["nested": [1, 2, 3]]] }

    @Test func everyRouteAnswersBadInputInTheEnvelope() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .none)
        let client = HTTPTestClient(port: gatehouse.port)
        let signedUp = try await send(
            client, "POST", "/api/auth/users?client_type=mobile",
            json: ["email": "ada@example.com", "password": "long password 1"])
        let access = try #require(signedUp.json["accessToken"] as? String)
        let superuser = try await gatehouse.superuserToken()
        var checked = 0

        for route in Self.bodyRoutes {
            // Signed in where the route needs it, so the body is what gets judged.
            let bearer = route.path.hasPrefix("/api/auth/profiles") ? access : route.method == "DELETE" ? superuser : "anon_key"
            var bodies: [(String, [UInt8], String)] = Self.rawBodies.map {
                ("raw \($0.prefix(20))", Array($0.utf8), "application/json")
            }
            bodies.append(("empty object", Array("{}".utf8), "application/json"))
            bodies.append(("form body", Array("email=a%40b.c".utf8), "application/x-www-form-urlencoded"))
            for field in route.fields {
                // Any object is a profile patch: those are right, not wrong.
                for value in Self.wrongValues where !(field == "profile" && value is [String: Any]) {
                    let json = try JSONSerialization.data(withJSONObject: [field: value], options: [.fragmentsAllowed])
                    bodies.append(("\(field)=\(String(describing: value).prefix(20))", Array(json), "application/json"))
                }
            }
            for (label, body, type) in bodies {
                let response = try await client.request(
                    route.method, route.path,
                    headers: [("Content-Type", type), ("Authorization", "Bearer \(bearer)")], body: body)
                expectAnswer(response, route: route, label: label)
                checked += 1
            }
        }

        // Query strings and path parameters.
        let queries: [(String, String, String?)] = [
            ("GET", "/api/auth/email/verify-link?token=" + Self.huge.prefix(4000), nil),
            ("GET", "/api/auth/email/verify-link?token=a&token=b", nil),
            ("GET", "/api/auth/email/reset-password-link?token=%e2%80%ae%3Cscript%3E", nil),
            ("GET", "/api/auth/profiles/" + Self.huge.prefix(4000), nil),
            ("GET", "/api/auth/profiles/..%2F..%2Fusers", nil),
            ("GET", "/api/auth/profiles/%E2%80%AE", nil),
            ("GET", "/api/auth/oauth/no-such-provider?redirect_uri=https://evil.example/cb&code_challenge=x", nil),
            ("GET", "/api/auth/oauth/test?redirect_uri=javascript:alert(1)&code_challenge=" + Self.huge.prefix(3000), nil),
            ("GET", "/api/auth/oauth/test?redirect_uri=a&redirect_uri=b", nil),
            ("POST", "/api/auth/sessions?client_type=toaster", nil),
            ("POST", "/api/auth/sessions?client_type=web&client_type=mobile", nil),
            ("GET", "/api/auth/users?limit=abc&offset=-5&search=" + Self.huge.prefix(3000), superuser),
            ("GET", "/api/auth/users?limit=99999999999999999999&offset=99999999999999999999", superuser),
            ("GET", "/api/auth/users", nil),
            ("DELETE", "/api/auth/users", nil),
            ("GET", "/api/auth/no-such-route", nil),
            ("PUT", "/api/auth/sessions", nil)
        ]
        for (method, path, bearer) in queries {
            let response = try await client.request(
                method, path, headers: [("Authorization", "Bearer \(bearer ?? "anon_key")")], body: [])
            let alwaysAnswers = path.contains("-link?") || (path.hasPrefix("/api/auth/users?") && bearer != nil)
            expectAnswer(
                response, route: Route(method: method, path: path, fields: [], alwaysAnswers: alwaysAnswers), label: path)
            checked += 1
        }

        // Bearer tokens that are not (or no longer) this server's.
        let refresh = try #require(signedUp.json["refreshToken"] as? String)
        let rotated = try await send(client, "POST", "/api/auth/refresh?client_type=mobile", json: ["refresh_token": refresh])
        #expect(rotated.status == 200)
        let parts = access.split(separator: ".").map(String.init)
        let tokens: [(String, String)] = [
            ("garbage", "not-a-token"), ("empty", ""), ("huge", String(Self.huge.prefix(6000))),
            ("forged signature", parts[0] + "." + parts[1] + ".AAAA"),
            ("alg none", "eyJhbGciOiJub25lIn0." + parts[1] + "."),
            ("three dots", "a.b.c.d"), ("a refresh token", refresh)
        ]
        for (label, token) in tokens {
            for (method, path) in [("GET", "/api/auth/sessions/current"), ("PATCH", "/api/auth/profiles/current")] {
                let response = try await client.request(
                    method, path, headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                    body: Array("{\"profile\":{\"a\":1}}".utf8))
                expectAnswer(response, route: Route(method: method, path: path, fields: []), label: label)
                #expect(response.status == 401, "\(label) on \(path): \(response.text)")
                checked += 1
            }
        }
        for (label, token) in [("reused", refresh), ("unknown", "x" + refresh), ("an access token", access), ("huge", Self.huge)]
        {
            for key in ["refreshToken", "refresh_token"] {
                let response = try await send(client, "POST", "/api/auth/refresh?client_type=mobile", json: [key: token])
                expectAnswer(response, route: Route(method: "POST", path: "/api/auth/refresh", fields: []), label: label)
                #expect(response.status == 401, "\(label) refresh token: \(response.text)")
                checked += 1
            }
        }
        // The reuse ended the session: its rotated tokens are dead too, and an expired access token
        // (after 15 minutes) is refused like any other.
        let next = try #require(rotated.json["refreshToken"] as? String)
        #expect(try await send(client, "POST", "/api/auth/refresh", json: ["refreshToken": next]).status == 401)
        let fresh = try await send(
            client, "POST", "/api/auth/sessions?client_type=mobile",
            json: ["email": "ada@example.com", "password": "long password 1"])
        let freshAccess = try #require(fresh.json["accessToken"] as? String)
        gatehouse.clock.advance(16 * 60)
        let expired = try await client.request(
            "GET", "/api/auth/sessions/current", headers: [("Authorization", "Bearer \(freshAccess)")])
        expectAnswer(expired, route: Route(method: "GET", path: "/api/auth/sessions/current", fields: []), label: "expired")
        #expect(expired.status == 401)
        #expect(checked > 400)
        await gatehouse.stop()
    }

    /// Only the head is sent: the server refuses a declared 2 MiB body before reading it and closes
    /// the connection, so a client still writing the body would meet a reset instead of the answer.
    @Test func aBodyOverTheLimitIsRefusedWithoutA5xx() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .none)
        let response = try await HTTPTestClient(port: gatehouse.port).send(
            "POST /api/auth/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(2 << 20)\r\n\r\n", method: "POST")
        #expect(response.status == 413)
        expectAnswer(
            response, route: Route(method: "POST", path: "/api/auth/users", fields: []), label: "body over the limit")
        await gatehouse.stop()
    }

    private func send(_ client: HTTPTestClient, _ method: String, _ path: String, json: [String: Any]) async throws
        -> TestResponse
    {
        try await client.request(
            method, path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer anon_key")],
            body: Array(try JSONSerialization.data(withJSONObject: json)))
    }

    private func expectAnswer(
        _ response: TestResponse, route: Route, label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = "\(route.method) \(route.path.prefix(80)) [\(label)] → \(response.status) \(response.text.prefix(300))"
        #expect(response.status < 500, "a 5xx: \(context)", sourceLocation: sourceLocation)
        if !route.alwaysAnswers {
            #expect((400..<500).contains(response.status), "not a 4xx: \(context)", sourceLocation: sourceLocation)
        }
        guard response.status >= 400 else { return }
        #expect(response.json["error"] is String, "no error code: \(context)", sourceLocation: sourceLocation)
        #expect((response.json["message"] as? String)?.isEmpty == false, "no message: \(context)", sourceLocation: sourceLocation)
        #expect(response.json["statusCode"] as? Int == response.status, "statusCode: \(context)", sourceLocation: sourceLocation)
        #expect(
            !response.text.contains("SQL") && !response.text.contains("Swift"), "internals: \(context)",
            sourceLocation: sourceLocation)
    }
}
