import AuthCore
import Foundation
import Testing

// The README's Swift receiver (*Webhooks*), word for word: `theReadmeShowsThisReceiver` fails when
// the two part.
// README receiver begins
/// The app's webhook endpoint, made with the endpoint's secret: `try AppWebhooks(secret: "whsec_…")`.
struct AppWebhooks {
    let verifier: WebhookVerifier

    init(secret: String) throws { verifier = try WebhookVerifier(secret: secret) }

    /// The event; throws `WebhookVerificationError` for a forged or stale request (answer 400).
    /// `headers` as the framework gives them, names lower-cased; answer 2xx once handled.
    func receive(body: [UInt8], headers: [String: String]) throws -> [String: Any]? {
        try verifier.verify(body: body, header: { headers[$0] })
        return try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    }
}
// README receiver ends

/// The receiver the README gives Swift apps: it is the README's code, and it takes a request signed
/// as Gatehouse signs one and refuses it once its body is changed.
@Suite struct ReadmeWebhookReceiverTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    @Test func theReadmeShowsThisReceiver() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let code = try #require(
            source.components(separatedBy: "// README receiver begins\n").last?.components(
                separatedBy: "// README receiver ends"
            ).first)
        #expect(readme.contains("```swift\nimport AuthCore\nimport Foundation\n\n" + code + "```"))
    }

    @Test func itTakesASignedEventAndRefusesAChangedOne() throws {
        let body = Array(#"{"type":"user.created","timestamp":"2026-11-29T00:00:00Z","data":{}}"#.utf8)
        let now = Int(Date().timeIntervalSince1970)
        let key = try #require(WebhookSignature.key(of: Self.secret))
        let headers = [
            "webhook-id": "msg_1", "webhook-timestamp": String(now),
            "webhook-signature": try WebhookSignature.v1(key: key, id: "msg_1", timestamp: now, body: body)
        ]
        let receiver = try AppWebhooks(secret: Self.secret)
        #expect(try receiver.receive(body: body, headers: headers)?["type"] as? String == "user.created")
        #expect(throws: WebhookVerificationError.self) {
            try receiver.receive(body: Array(#"{"type":"user.deleted"}"#.utf8), headers: headers)
        }
    }
}
