import Foundation

/// Checks a webhook as the Standard Webhooks spec says, for a Swift app that receives Gatehouse's
/// events: the `webhook-id`, `webhook-timestamp` and `webhook-signature` headers (or their
/// `svix-*` names), the timestamp within `tolerance` of now (a replayed old request fails), and a
/// `v1` signature among the space-separated ones (two during a secret's rotation) equal to the
/// body's, compared in constant time.
public struct WebhookVerifier: Sendable {
    private let key: [UInt8]
    /// How far the timestamp may be from now, either way (the spec's libraries allow 5 minutes).
    public let tolerance: TimeInterval

    /// Throws `WebhookVerificationError.badSecret` when `secret` is not `whsec_<base64>`.
    public init(secret: String, tolerance: TimeInterval = 300) throws {
        guard let key = WebhookSignature.key(of: secret) else { throw WebhookVerificationError.badSecret }
        (self.key, self.tolerance) = (key, tolerance)
    }

    /// Returns when `body` is signed with this secret; `header` looks a header up by its
    /// lower-case name (`webhook-id`), `now` is the receiver's clock.
    public func verify(body: [UInt8], header: (String) -> String?, now: Date = Date()) throws {
        func value(_ name: String) -> String? { header("webhook-" + name) ?? header("svix-" + name) }
        guard let id = value("id"), let timestampText = value("timestamp"), let signatures = value("signature") else {
            throw WebhookVerificationError.missingHeaders
        }
        guard let timestamp = Int(timestampText) else { throw WebhookVerificationError.badTimestamp }
        guard abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance else {
            throw WebhookVerificationError.timestampOutOfTolerance
        }
        let expected = Array(try WebhookSignature.v1(key: key, id: id, timestamp: timestamp, body: body).utf8)
        var matched = false
        for candidate in signatures.split(separator: " ") where candidate.hasPrefix("v1,") {
            // Every candidate is compared to the end, so the time taken says nothing about which matched.
            matched = Self.constantTimeEqual(Array(candidate.utf8), expected) || matched
        }
        guard matched else { throw WebhookVerificationError.noMatchingSignature }
    }

    /// Equality whose time depends on the lengths only, never on where the bytes differ.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// Why a webhook failed `WebhookVerifier.verify`.
public enum WebhookVerificationError: Error, Sendable, Equatable {
    case badSecret
    case missingHeaders
    case badTimestamp
    case timestampOutOfTolerance
    case noMatchingSignature
}
