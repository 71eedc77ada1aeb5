import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 8: each API family answers in its own error envelope — for a malformed body, an unknown
/// route under its prefix and a wrong method — chosen by the routes that own the path, not by a
/// guess from the URL. Before, POST /api/auth/oauth/exchange answered Gatehouse's envelope for a bad body.
@Suite(.stopsWhatItStarts) struct ErrorEnvelopeTests {
    private func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "not JSON: \(response.text)")
    }

    private func send(_ gatehouse: OAuthGatehouse, _ method: String, _ path: String, body: String? = nil, token: String? = nil)
        async throws -> TestResponse
    {
        var headers: [(String, String)] = []
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await HTTPTestClient(port: gatehouse.port).request(
            method, path, headers: headers, body: Array((body ?? "").utf8))
    }

    @Test func gatehouseAdminAPI() async throws {
        let gatehouse = try await OAuthGatehouse()
        let token = try await gatehouse.superuserToken()
        for (response, status) in [
            (try await send(gatehouse, "POST", "/_/api/users", body: "{not json", token: token), 400),
            (try await send(gatehouse, "GET", "/_/api/no-such-thing", token: token), 404),
            (try await send(gatehouse, "PUT", "/_/api/users", token: token), 405),
            // Refused by the HTTP layer before routing, still in the family's envelope.
            (try await send(gatehouse, "GET", "/_/api/users/%ff", token: token), 400)
        ] {
            #expect(response.status == status)
            let body = try json(response)
            #expect(Set(body.keys) == ["error", "message", "status"], "\(body)")
            #expect(body["status"] as? Int == status)
        }
        await gatehouse.stop()
    }

    @Test func insForgeAuthAPI() async throws {
        let gatehouse = try await OAuthGatehouse()
        for (response, status) in [
            (try await send(gatehouse, "POST", "/api/auth/oauth/exchange", body: "{not json"), 400),
            (try await send(gatehouse, "GET", "/api/auth/no-such-thing"), 404),
            // GET here is `GET /api/auth/oauth/{provider}` asking for a provider called "exchange".
            (try await send(gatehouse, "PUT", "/api/auth/oauth/exchange"), 405),
            (try await send(gatehouse, "GET", "/api/auth/profiles/%ff"), 400),
            (try await send(gatehouse, "GET", "/api/auth/profiles/a%00b"), 400)
        ] {
            #expect(response.status == status)
            let body = try json(response)
            #expect(body["statusCode"] as? Int == status, "\(body)")
            #expect((body["message"] as? String)?.isEmpty == false, "InsForge's SDK needs a message: \(body)")
            #expect(body["error"] is String)
            #expect(body["status"] == nil && body["data"] == nil)
        }
        await gatehouse.stop()
    }

    @Test func pocketBaseAPI() async throws {
        let gatehouse = try await OAuthGatehouse()
        for (response, status, message) in [
            (try await send(gatehouse, "GET", "/api/no-such-route"), 404, "The requested resource wasn't found."),
            (
                try await send(gatehouse, "POST", "/api/collections/users/records", body: "{not json"), 400,
                "Something went wrong while processing your request."
            ),
            (try await send(gatehouse, "POST", "/api/health", body: "{}"), 405, "Method Not Allowed."),
            (
                try await send(gatehouse, "GET", "/api/collections/users/records/%zz"), 400,
                "Something went wrong while processing your request."
            )
        ] {
            #expect(response.status == status)
            let body = try json(response)
            #expect(body["status"] as? Int == status, "\(body)")
            #expect(body["message"] as? String == message)
            #expect((body["data"] as? [String: Any])?.isEmpty == true)
        }
        // Pages keep their HTML error page.
        let page = try await send(gatehouse, "GET", "/no-such-page")
        #expect(page.status == 404 && page.header("Content-Type")?.hasPrefix("text/html") == true)
        let undecodable = try await send(gatehouse, "GET", "/account/%zz")
        #expect(undecodable.status == 400 && undecodable.header("Content-Type")?.hasPrefix("text/html") == true)
        await gatehouse.stop()
    }
}
