import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import Testing

/// Who the SuperTokens-core API answers: callers that send its key (from anywhere) —
/// `--supertokens-api-key`, else the one made at first start (issue 42: loopback callers without
/// it were answered) — as the core answers a wrong key, 401 `Invalid API key`. `/apiversion` and
/// the JWKS answer everyone (the SDK fetches keys with no headers). Requests are handed to the
/// application directly, so they can come from any address.
@Suite struct SuperTokensCoreAccessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var key: String?
        var path: String
        var sent: String?
        var loopback: Bool
        var status: Int
        var testDescription: String {
            "key \(key ?? "none"), \(path), sent \(sent ?? "none"), \(loopback ? "loopback" : "remote") → \(status)"
        }
    }

    /// Stands for the key the server made (`Application.superTokensAPIKey`).
    static let made = "(the key made at first start)"

    static let cases: [Case] = [
        Case(key: nil, path: "/public/recipe/signin", sent: nil, loopback: true, status: 401),
        Case(key: nil, path: "/public/recipe/signin", sent: made, loopback: true, status: 200),
        Case(key: nil, path: "/public/recipe/signin", sent: made, loopback: false, status: 200),
        Case(key: nil, path: "/public/recipe/signin", sent: nil, loopback: false, status: 401),
        Case(key: nil, path: "/public/recipe/signin", sent: "anything", loopback: false, status: 401),
        Case(key: nil, path: "/apiversion", sent: nil, loopback: false, status: 200),
        Case(key: nil, path: "/.well-known/jwks.json", sent: nil, loopback: false, status: 200),
        Case(key: "k-1", path: "/public/recipe/signin", sent: "k-1", loopback: false, status: 200),
        Case(key: "k-1", path: "/public/recipe/signin", sent: nil, loopback: true, status: 401),
        Case(key: "k-1", path: "/public/recipe/signin", sent: "k-2", loopback: true, status: 401),
        Case(key: "k-1", path: "/.well-known/jwks.json", sent: nil, loopback: false, status: 200)
    ]

    @Test(arguments: cases) func onlyCallersWithTheKey(_ check: Case) async throws {
        let running = try await InProcessApplication { $0.superTokensAPIKey = check.key }
        let app = running.app
        var headers: HTTPHeaders = ["Content-Type": "application/json", "cdi-version": "5.4"]
        if let sent = check.sent { headers.add("api-key", sent == Self.made ? app.superTokensAPIKey : sent) }
        let isGet = !check.path.hasPrefix("/public")
        let request = try Request(
            method: isGet ? .get : .post, target: check.path, headers: headers,
            body: isGet ? [] : Array(#"{"email":"ada@example.com","password":"Long-password-1"}"#.utf8),
            remoteAddress: check.loopback ? "127.0.0.1" : "203.0.113.7", isLoopbackPeer: check.loopback)
        let response = await app.responder(request)
        #expect(response.status == check.status, "\(String(decoding: response.body, as: UTF8.self))")
        if check.status == 401 { #expect(String(decoding: response.body, as: UTF8.self) == "Invalid API key") }
        await running.stop()
    }
}
