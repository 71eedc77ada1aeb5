import Foundation
import Logging
import Store

/// Counts events per key in a sliding window: sign-in failures per account and source, sign-in
/// tries per IP, code checks, and mail sends. The counts live in SQLite (`rate_limit_events`), so a
/// restart does not hand an attacker a fresh budget. When the database cannot be read, a limited
/// action is refused for a minute rather than let through unlimited.
struct RateLimiter: Sendable {
    /// At most `limit` events per `window` seconds.
    struct Rule: Sendable {
        var limit: Int
        var window: TimeInterval
    }

    /// Exponential back-off: the first `freeTries` events in `window` pass; after n events the
    /// next must wait 2^(n − freeTries) seconds after the newest one, at most `maximumDelay`.
    struct BackOff: Sendable {
        var freeTries: Int
        var window: TimeInterval
        var maximumDelay: TimeInterval
    }

    /// The wait answered when the counts cannot be read.
    static let unavailableWait = 60

    let database: AppDatabase
    /// Off only for load tests (`--no-rate-limits`): then every event is allowed.
    let enabled: Bool
    let logger: Logger

    /// Seconds until one more event is allowed under `rule`, or nil when it is allowed now.
    func retryAfter(_ key: String, _ rule: Rule, now: Date) async -> Int? {
        guard enabled else { return nil }
        do {
            let window = try await database.rateWindow(key: key, since: now.addingTimeInterval(-rule.window))
            return Self.wait(window, rule, now: now)
        } catch {
            return unavailable(error)
        }
    }

    /// Seconds until the next event is allowed under `backOff`, or nil when it is allowed now.
    func retryAfter(_ key: String, _ backOff: BackOff, now: Date) async -> Int? {
        guard enabled else { return nil }
        do {
            let window = try await database.rateWindow(key: key, since: now.addingTimeInterval(-backOff.window))
            guard window.count >= backOff.freeTries, let newest = window.newest else { return nil }
            let exponent = min(window.count - backOff.freeTries, 30)
            let delay = min(pow(2, Double(exponent)), backOff.maximumDelay)
            let remaining = newest.addingTimeInterval(delay).timeIntervalSince(now)
            return remaining > 0 ? max(1, Int(remaining.rounded(.up))) : nil
        } catch {
            return unavailable(error)
        }
    }

    /// Records one event; the key's events older than the rule's window are dropped.
    func hit(_ key: String, _ rule: Rule, now: Date) async {
        await record(key, keepingSince: now.addingTimeInterval(-rule.window), now: now)
    }

    /// Records one event counted by a back-off; its events older than the window are dropped.
    func hit(_ key: String, _ backOff: BackOff, now: Date) async {
        await record(key, keepingSince: now.addingTimeInterval(-backOff.window), now: now)
    }

    /// Records an event if allowed; returns the wait in seconds when it is not.
    func take(_ key: String, _ rule: Rule, now: Date) async -> Int? {
        guard enabled else { return nil }
        do {
            let since = now.addingTimeInterval(-rule.window)
            guard let window = try await database.takeRateEvent(key: key, limit: rule.limit, since: since, at: now)
            else { return nil }
            return Self.wait(window, rule, now: now)
        } catch {
            return unavailable(error)
        }
    }

    /// Forgets a key, e.g. an (account, source) pair's failures after a successful sign-in.
    func reset(_ key: String) async {
        do {
            try await database.clearRateEvents(key: key)
        } catch {
            logger.error("rate-limit key not cleared", metadata: ["error": "\(error)"])
        }
    }

    private func record(_ key: String, keepingSince since: Date, now: Date) async {
        guard enabled else { return }
        do {
            try await database.recordRateEvent(key: key, at: now, keepingSince: since)
        } catch {
            logger.error("rate-limit event not recorded", metadata: ["error": "\(error)"])
        }
    }

    private static func wait(_ window: RateWindow, _ rule: Rule, now: Date) -> Int? {
        guard window.count >= rule.limit, let oldest = window.oldest else { return nil }
        // The window's oldest event is the one that must age out before another fits.
        return max(1, Int(oldest.addingTimeInterval(rule.window).timeIntervalSince(now).rounded(.up)))
    }

    private func unavailable(_ error: any Error) -> Int {
        logger.error("rate-limit counts unreadable; refusing for now", metadata: ["error": "\(error)"])
        return Self.unavailableWait
    }
}

/// The throttling rules Gatehouse applies (README "Security defaults").
enum Throttle {
    /// Sign-in tries from one IP address.
    static let signInPerIP = RateLimiter.Rule(limit: 30, window: 300)
    /// Failed sign-ins for one account from one IP address: five free, then 1 s, 2 s, 4 s … up to
    /// 15 minutes between tries. A stranger elsewhere cannot slow the owner down this way.
    static let failuresPerAccountAndIP = RateLimiter.BackOff(freeTries: 5, window: 3600, maximumDelay: 900)
    /// Failed sign-ins for one account from everywhere: the ceiling ASVS V2.2.1 asks for
    /// (at most 100 per hour), far above what the per-source back-off lets one address reach.
    static let failuresPerAccount = RateLimiter.Rule(limit: 100, window: 3600)
    /// Code checks from one IP address.
    static let codeChecksPerIP = RateLimiter.Rule(limit: 30, window: 300)
    /// Second sign-in steps (authenticator and recovery codes) from one IP address.
    static let secondStepPerIP = RateLimiter.Rule(limit: 30, window: 300)
    /// Verification mails to one address: at least 60 s apart.
    static let resendPerEmail = RateLimiter.Rule(limit: 1, window: 60)
    /// Mails triggered from one IP address.
    static let sendsPerIP = RateLimiter.Rule(limit: 20, window: 3600)
    /// Sign-ups from one IP address.
    static let signUpsPerIP = RateLimiter.Rule(limit: 50, window: 3600)
}
