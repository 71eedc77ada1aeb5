import Foundation

/// How webhooks are delivered: the retry schedule, time-outs, what is kept of a response, and
/// which hosts an endpoint may name. A value, so tests run the whole schedule in milliseconds.
public struct WebhookPolicy: Sendable, Equatable {
    /// The waits before each retry; a delivery gives up (and marks its endpoint failing) after
    /// `retryDelays.count + 1` tries.
    public var retryDelays: [TimeInterval]
    /// How long a try may wait for the receiver's answer.
    var timeout: TimeInterval
    /// How long an account change the store logged waits for its act's audit row (way in, actor)
    /// before it goes without.
    var grace: TimeInterval
    /// How many bytes of a response body are kept for the inspector.
    var capturedResponseBytes: Int
    /// Whether endpoints may name hosts other than loopback ones (`--webhook-any-host`).
    public var allowsAnyHost: Bool
    /// How long the previous secret still signs after a rotation.
    var rotationOverlap: TimeInterval
    /// How many deliveries are in flight at once.
    var concurrency: Int
    /// How often the worker looks for events another process wrote (the command line's).
    var otherWritersLook: TimeInterval

    /// A developer's schedule: 5 s, 30 s, 2 min, 10 min, 30 min, then hourly; given up after 8 tries
    /// (about 3.5 hours). The command line's events are noticed within a second.
    public static let standard = WebhookPolicy(
        retryDelays: [5, 30, 120, 600, 1800, 3600, 3600], timeout: 15, grace: 5, capturedResponseBytes: 4096,
        allowsAnyHost: false, rotationOverlap: 24 * 3600, concurrency: 8, otherWritersLook: 1)

    public init(
        retryDelays: [TimeInterval], timeout: TimeInterval, grace: TimeInterval, capturedResponseBytes: Int,
        allowsAnyHost: Bool, rotationOverlap: TimeInterval, concurrency: Int, otherWritersLook: TimeInterval
    ) {
        (self.retryDelays, self.timeout, self.grace) = (retryDelays, timeout, grace)
        (self.capturedResponseBytes, self.allowsAnyHost) = (capturedResponseBytes, allowsAnyHost)
        (self.rotationOverlap, self.concurrency, self.otherWritersLook) = (rotationOverlap, concurrency, otherWritersLook)
    }

    /// What the try numbered `attempts` (from 1) failing means: the next wait, or giving up.
    func afterFailure(attempts: Int) -> TimeInterval? {
        attempts <= retryDelays.count ? retryDelays[attempts - 1] : nil
    }
}
