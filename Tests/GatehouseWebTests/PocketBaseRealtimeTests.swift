import Foundation
import HTTPTestClient
import TestScope
import Testing

@testable import GatehouseWeb

/// The PocketBase SDKs' all-in-one OAuth2 flow (`authWithOAuth2({provider})`) through Gatehouse,
/// step by step as the JS SDK takes it, against the real oidc-provider-mock: realtime stream,
/// `@oauth2` subscription, the provider's redirect to `/api/oauth2-redirect`, the code to
/// `auth-with-oauth2`.
@Suite(.stopsWhatItStarts) struct PocketBaseRealtimeTests {
    @Test func theAllInOneOAuth2FlowSignsIn() async throws {
        let mock = try await OIDCProviderMock()
        defer { mock.stop() }
        let gatehouse = try await OAuthGatehouse()
        try await mock.serveAsLiveProvider(
            to: gatehouse, person: "rita-sub", ["email": "rita@example.com", "email_verified": true, "name": "Rita Realtime"])
        let client = HTTPTestClient(port: gatehouse.port)

        let methods = try await client.request("GET", "/api/collections/users/auth-methods")
        let provider = try #require(((methods.json["oauth2"] as? [String: Any])?["providers"] as? [[String: Any]])?.first)
        let events = try await client.openEventStream("/api/realtime")
        #expect(events.status == 200 && events.header("Content-Type") == "text/event-stream")
        let connect = try await events.next()
        let clientID = try #require(connect["id"])
        #expect(connect["event"] == "PB_CONNECT" && connect["data"] == #"{"clientId":"\#(clientID)"}"#)
        let subscribed = try await client.request(
            "POST", "/api/realtime", headers: [("Content-Type", "application/json")],
            body: Array(#"{"clientId":"\#(clientID)","subscriptions":["@oauth2"]}"#.utf8))
        #expect(subscribed.status == 204)

        // The SDK appends its redirect URL and puts the realtime client id in `state`.
        let redirect = "http://127.0.0.1:\(gatehouse.port)/api/oauth2-redirect"
        let authURL =
            (provider["authURL"] as? String ?? "") + (redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        var components = try #require(URLComponents(string: authURL))
        components.queryItems = components.queryItems?.map {
            $0.name == "state" ? URLQueryItem(name: "state", value: clientID) : $0
        }
        let callback = try await mock.authorize(try #require(components.string), as: "rita-sub")
        #expect(callback.hasPrefix(redirect + "?"))
        let page = try await client.request("GET", pathAndQuery(callback))
        #expect(page.status == 200 && page.text.contains("Auth completed"))

        let message = try await events.next()
        #expect(message["event"] == "@oauth2" && message["id"] == clientID)
        let data = try #require(
            JSONSerialization.jsonObject(with: Data((message["data"] ?? "").utf8)) as? [String: String])
        #expect(data["state"] == clientID && data["error"] == nil)
        let code = try #require(data["code"])
        #expect(code == queryItem("code", in: callback))

        let body = try JSONSerialization.data(withJSONObject: [
            "provider": "mock", "code": code, "codeVerifier": provider["codeVerifier"] as? String ?? "", "redirectURL": redirect
        ])
        let signedIn = try await client.request(
            "POST", "/api/collections/users/auth-with-oauth2", headers: [("Content-Type", "application/json")], body: Array(body))
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect((signedIn.json["record"] as? [String: Any])?["email"] as? String == "rita@example.com")

        // The subscription is spent: a second redirect with the same state delivers nothing.
        let replay = try await client.request("GET", pathAndQuery(callback))
        #expect(replay.text.contains("Failed to authenticate"))
        events.hangUp()
        await gatehouse.stop()
    }

    @Test func subscriptionsAnswerAsPocketBaseDoes() async throws {
        let gatehouse = try await OAuthGatehouse()
        let client = HTTPTestClient(port: gatehouse.port)
        func post(_ json: String, token: String? = nil) async throws -> TestResponse {
            var headers = [("Content-Type", "application/json")]
            if let token { headers.append(("Authorization", token)) }
            return try await client.request("POST", "/api/realtime", headers: headers, body: Array(json.utf8))
        }
        let unknown = try await post(#"{"clientId":"nope","subscriptions":["@oauth2"]}"#)
        #expect(unknown.status == 404 && unknown.json["message"] as? String == "Missing or invalid client id.")
        let blank = try await post("{}")
        #expect(blank.status == 400)
        #expect(
            ((blank.json["data"] as? [String: Any])?["clientId"] as? [String: Any])?["code"] as? String == "validation_required")
        let wrongType = try await post(#"{"clientId":"x","subscriptions":"@oauth2"}"#)
        #expect(
            wrongType.status == 400
                && wrongType.json["message"] as? String == "Something went wrong while processing your request.")
        let tooLong = try await post(#"{"clientId":"x","subscriptions":["\#(String(repeating: "a", count: 2501))"]}"#)
        let perTopic = (tooLong.json["data"] as? [String: Any])?["subscriptions"] as? [String: Any]
        #expect((perTopic?["0"] as? [String: Any])?["code"] as? String == "validation_length_too_long")

        // Once a signed-in app set the subscriptions, a guest may not change them.
        let events = try await client.openEventStream("/api/realtime")
        let clientID = try #require(try await events.next()["id"])
        let browser = gatehouse.browser()
        try await gatehouse.signUp(browser, email: "sub@example.com")
        let signIn = try await client.request(
            "POST", "/api/collections/users/auth-with-password", headers: [("Content-Type", "application/json")],
            body: Array(#"{"identity":"sub@example.com","password":"correct horse battery"}"#.utf8))
        let token = try #require(signIn.json["token"] as? String, "\(signIn.text)")
        #expect(try await post(#"{"clientId":"\#(clientID)","subscriptions":["users/*"]}"#, token: token).status == 204)
        let guest = try await post(#"{"clientId":"\#(clientID)","subscriptions":["@oauth2"]}"#)
        #expect(guest.status == 403)
        #expect(guest.json["message"] as? String == "The current and the previous request authorization don't match.")

        // A redirect for a client that never subscribed to @oauth2 is refused and delivers nothing.
        let stray = try await client.request("GET", "/api/oauth2-redirect?state=\(clientID)&code=abc")
        #expect(stray.status == 200 && stray.text.contains("Failed to authenticate"))
        events.hangUp()
        await gatehouse.stop()
    }
}

/// The realtime hub on its own: a client that gets no message for the idle timeout is closed, as
/// PocketBase closes forgotten connections (its SDKs reconnect); a newcomer to a full hub takes a
/// guest's place.
@Suite(.stopsWhatItStarts) struct PocketBaseRealtimeHubTests {
    @Test func aNewcomerToAFullHubTakesTheOldestGuestPlaceOfTheBusiestAddress() async throws {
        var limits = PocketBaseRealtime.Limits()
        limits.maxClients = 3
        let hub = PocketBaseRealtime(limits: limits)
        let first = try #require(await hub.connect(from: "10.0.0.1"))
        let second = try #require(await hub.connect(from: "10.0.0.1"))
        let other = try #require(await hub.connect(from: "10.0.0.2"))
        // From elsewhere: the busiest address's oldest goes.
        let newcomer = try #require(await hub.connect(from: "10.0.0.3"))
        #expect(!first.isOpen && second.isOpen && other.isOpen && newcomer.isOpen)
        // Three addresses of one guest each: a newcomer from one of them replaces its own.
        let again = try #require(await hub.connect(from: "10.0.0.3"))
        #expect(!newcomer.isOpen && second.isOpen && other.isOpen && again.isOpen)
        #expect(await hub.count == 3)
        for stream in [second, other, again] { stream.finish() }
    }

    @Test func anIdleClientIsClosed() async throws {
        let hub = PocketBaseRealtime(idleTimeout: .milliseconds(50))
        let stream = try #require(await hub.connect(from: "127.0.0.1"))
        #expect(stream.isOpen)
        for _ in 0..<500 where stream.isOpen { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!stream.isOpen)
    }
}
