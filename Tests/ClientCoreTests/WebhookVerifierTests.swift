import Foundation
import Testing

@testable import AuthCore

/// The Standard Webhooks check a Swift app runs on Gatehouse's requests, against the spec's own
/// example (the `standardwebhooks` library signs it the same) and each way a forged or replayed
/// request differs from it.
@Suite struct WebhookVerifierTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let timestamp = 1_614_265_330
    static let body = Array(#"{"test": 2432232314}"#.utf8)
    static let signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    static let sentAt = Date(timeIntervalSince1970: TimeInterval(timestamp))

    private func headers(
        id: String = id, timestamp: String = String(timestamp), signature: String = signature, prefix: String = "webhook-"
    ) -> (String) -> String? {
        let values = [prefix + "id": id, prefix + "timestamp": timestamp, prefix + "signature": signature]
        return { values[$0] }
    }

    @Test func signsTheSpecExampleAsTheSpecSays() throws {
        let key = try #require(WebhookSignature.key(of: Self.secret))
        #expect(try WebhookSignature.v1(key: key, id: Self.id, timestamp: Self.timestamp, body: Self.body) == Self.signature)
    }

    @Test func acceptsTheSpecExampleUnderEitherHeaderNames() throws {
        let verifier = try WebhookVerifier(secret: Self.secret)
        try verifier.verify(body: Self.body, header: headers(), now: Self.sentAt)
        try verifier.verify(body: Self.body, header: headers(prefix: "svix-"), now: Self.sentAt.addingTimeInterval(299))
    }

    @Test func acceptsAMatchingSignatureAmongSeveral() throws {
        let both = "v1,bm90IHRoaXMgb25lIGF0IGFsbCBub3QgaXQgbm90IGl0IG5vdA== " + Self.signature
        try WebhookVerifier(secret: Self.secret).verify(body: Self.body, header: headers(signature: both), now: Self.sentAt)
    }

    @Test func refusesAChangedBodyIdOrTimestamp() throws {
        let verifier = try WebhookVerifier(secret: Self.secret)
        #expect(throws: WebhookVerificationError.noMatchingSignature) {
            try verifier.verify(body: Array(#"{"test": 2432232315}"#.utf8), header: headers(), now: Self.sentAt)
        }
        #expect(throws: WebhookVerificationError.noMatchingSignature) {
            try verifier.verify(body: Self.body, header: headers(id: "msg_other"), now: Self.sentAt)
        }
        #expect(throws: WebhookVerificationError.noMatchingSignature) {
            try verifier.verify(body: Self.body, header: headers(timestamp: String(Self.timestamp + 1)), now: Self.sentAt)
        }
    }

    @Test func refusesAnotherSecretAndAnotherScheme() throws {
        #expect(throws: WebhookVerificationError.noMatchingSignature) {
            try WebhookVerifier(secret: "whsec_" + Data(repeating: 7, count: 24).base64EncodedString())
                .verify(body: Self.body, header: headers(), now: Self.sentAt)
        }
        let v2 = "v2," + Self.signature.dropFirst(3)
        #expect(throws: WebhookVerificationError.noMatchingSignature) {
            try WebhookVerifier(secret: Self.secret).verify(body: Self.body, header: headers(signature: v2), now: Self.sentAt)
        }
    }

    @Test func refusesAReplayOutsideTheTolerance() throws {
        let verifier = try WebhookVerifier(secret: Self.secret, tolerance: 300)
        #expect(throws: WebhookVerificationError.timestampOutOfTolerance) {
            try verifier.verify(body: Self.body, header: headers(), now: Self.sentAt.addingTimeInterval(301))
        }
        #expect(throws: WebhookVerificationError.timestampOutOfTolerance) {
            try verifier.verify(body: Self.body, header: headers(), now: Self.sentAt.addingTimeInterval(-301))
        }
    }

    @Test func refusesMissingOrMalformedHeadersAndSecrets() throws {
        let verifier = try WebhookVerifier(secret: Self.secret)
        #expect(throws: WebhookVerificationError.missingHeaders) {
            try verifier.verify(body: Self.body, header: { _ in nil }, now: Self.sentAt)
        }
        #expect(throws: WebhookVerificationError.badTimestamp) {
            try verifier.verify(body: Self.body, header: headers(timestamp: "soon"), now: Self.sentAt)
        }
        #expect(throws: WebhookVerificationError.badSecret) { try WebhookVerifier(secret: "whsec_***") }
        #expect(throws: WebhookVerificationError.badSecret) { try WebhookVerifier(secret: "whsec_") }
    }

    @Test func comparesEqualLengthsOnlyAndEveryByte() {
        #expect(WebhookVerifier.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!WebhookVerifier.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!WebhookVerifier.constantTimeEqual(Array("abc".utf8), Array("ab".utf8)))
    }
}
