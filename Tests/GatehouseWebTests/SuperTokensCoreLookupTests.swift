import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The SuperTokens core's reads that name an account by address, and its code resends, over HTTP
/// against the real server (loopback, so no API key is needed).
@Suite(.stopsWhatItStarts) struct SuperTokensCoreLookupTests {
    /// A CDI call: the status and the JSON object answered (empty for a plain-text answer).
    static func core(
        _ gatehouse: TestGatehouse, _ method: String, _ path: String, _ body: [String: Any]? = nil, from source: String? = nil
    ) async throws -> (status: Int, json: [String: Any]) {
        let response = try await HTTPTestClient(port: gatehouse.port, source: source).request(
            method, path,
            headers: [
                ("Content-Type", "application/json"), ("cdi-version", "5.4"), ("api-key", TestGatehouse.superTokensAPIKey)
            ],
            body: try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? [])
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, json ?? [:])
    }

    /// Sixty addresses each contained in the next (`a@…`, `aa@…`, …): a search for the shortest
    /// matches all sixty, and an answer cut at a page of fifty missed the oldest. Each is found
    /// by its exact address, in any letter case.
    @Test func eachOfSixtyAddressesSharingTextIsFoundByItsExactAddress() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        var ids: [String: String] = [:]
        for length in 1...60 {
            let email = String(repeating: "a", count: length) + "@shared.example"
            // Two app servers, as the sign-ups per IP address are capped at fifty an hour.
            let (status, json) = try await Self.core(
                gatehouse, "POST", "/public/recipe/signup", ["email": email, "password": "Correct-horse-battery-9"],
                from: length <= 30 ? nil : "127.0.0.2")
            let user = json["user"] as? [String: Any]
            #expect(status == 200 && json["status"] as? String == "OK", "sign-up of \(email): \(status) \(json)")
            ids[email] = user?["id"] as? String
        }
        for (email, id) in ids {
            let query = "/public/users/by-accountinfo?email=" + email.uppercased().replacingOccurrences(of: "@", with: "%40")
            let (status, json) = try await Self.core(gatehouse, "GET", query)
            let users = json["users"] as? [[String: Any]] ?? []
            #expect(status == 200 && users.count == 1 && users.first?["id"] as? String == id, "\(email): \(json)")
        }
    }

    /// The prebuilt UI offers a resend 15 s after the first code: it is answered (the core keeps
    /// no minute cool-down), while the address's hourly cap still refuses the eleventh code.
    @Test func aResendFifteenSecondsAfterTheFirstCodeIsAnsweredAndTheHourlyCapHolds() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let email = "resend@example.com"
        let first = try await Self.core(gatehouse, "POST", "/public/recipe/signinup/code", ["email": email])
        #expect(first.status == 200 && first.json["status"] as? String == "OK", "\(first)")
        let deviceID = try #require(first.json["deviceId"] as? String)
        gatehouse.clock.advance(15)
        let resent = try await Self.core(gatehouse, "POST", "/public/recipe/signinup/code", ["deviceId": deviceID])
        #expect(resent.status == 200 && resent.json["status"] as? String == "OK", "resend after 15 s: \(resent)")
        #expect(resent.json["userInputCode"] as? String != first.json["userInputCode"] as? String)
        for _ in 3...10 {
            gatehouse.clock.advance(15)
            #expect(try await Self.core(gatehouse, "POST", "/public/recipe/signinup/code", ["deviceId": deviceID]).status == 200)
        }
        gatehouse.clock.advance(15)
        let eleventh = try await Self.core(gatehouse, "POST", "/public/recipe/signinup/code", ["deviceId": deviceID])
        #expect(eleventh.status == 429, "the eleventh code in the hour: \(eleventh)")
    }
}
