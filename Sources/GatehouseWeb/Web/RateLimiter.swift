import Foundation

/// Counts events per key in a sliding window: sign-in tries per IP and per account, code checks,
/// and mail sends. In memory, because Gatehouse is one process; a restart forgets the counts.
actor RateLimiter {
    /// At most `limit` events per `window` seconds.
    struct Rule: Sendable {
        var limit: Int
        var window: TimeInterval
    }

    private var events: [String: [Date]] = [:]
    /// Keys kept at most; the oldest-touched half is dropped past it so a flood of keys can't grow memory.
    private let maximumKeys: Int
    /// Off only for load tests (`--no-rate-limits`): then every event is allowed.
    private let enabled: Bool

    init(enabled: Bool = true, maximumKeys: Int = 100_000) {
        self.enabled = enabled
        self.maximumKeys = maximumKeys
    }

    /// Seconds until one more event is allowed under `rule`, or nil when it is allowed now.
    func retryAfter(_ key: String, _ rule: Rule, now: Date) -> Int? {
        guard enabled else { return nil }
        let recent = prune(key, rule, now: now)
        guard recent.count >= rule.limit, let oldest = recent.first else { return nil }
        return max(1, Int((oldest.addingTimeInterval(rule.window).timeIntervalSince(now)).rounded(.up)))
    }

    /// Records one event.
    func hit(_ key: String, _ rule: Rule, now: Date) {
        guard enabled else { return }
        var recent = prune(key, rule, now: now)
        recent.append(now)
        events[key] = recent
        if events.count > maximumKeys { evictOldest() }
    }

    /// Records an event if allowed; returns the wait in seconds when it is not.
    func take(_ key: String, _ rule: Rule, now: Date) -> Int? {
        if let wait = retryAfter(key, rule, now: now) { return wait }
        hit(key, rule, now: now)
        return nil
    }

    /// Forgets a key, e.g. an account's failures after a successful sign-in.
    func reset(_ key: String) {
        events.removeValue(forKey: key)
    }

    private func prune(_ key: String, _ rule: Rule, now: Date) -> [Date] {
        let cutoff = now.addingTimeInterval(-rule.window)
        let recent = (events[key] ?? []).filter { $0 > cutoff }
        events[key] = recent.isEmpty ? nil : recent
        return recent
    }

    private func evictOldest() {
        let byLastEvent = events.sorted { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }
        for (key, _) in byLastEvent.prefix(events.count / 2) { events.removeValue(forKey: key) }
    }
}

/// The throttling rules Gatehouse applies (DESIGN.md security defaults).
enum Throttle {
    /// Sign-in tries from one IP address.
    static let signInPerIP = RateLimiter.Rule(limit: 30, window: 300)
    /// Failed sign-ins for one account before it is locked (it then answers like a wrong password).
    static let failuresPerAccount = RateLimiter.Rule(limit: 10, window: 900)
    /// Code checks from one IP address.
    static let codeChecksPerIP = RateLimiter.Rule(limit: 30, window: 300)
    /// Verification mails to one address: at least 60 s apart.
    static let resendPerEmail = RateLimiter.Rule(limit: 1, window: 60)
    /// Mails triggered from one IP address.
    static let sendsPerIP = RateLimiter.Rule(limit: 20, window: 3600)
    /// Sign-ups from one IP address.
    static let signUpsPerIP = RateLimiter.Rule(limit: 50, window: 3600)
}
