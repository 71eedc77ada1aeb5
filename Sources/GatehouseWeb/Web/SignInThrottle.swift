import AuthCore
import Foundation

/// Failed password sign-ins for one account from one source address. A lock applies to the
/// (account, IP) pair with exponential back-off, plus a much higher ceiling per account across
/// every address, so a stranger cannot lock the owner out from elsewhere. A try refused while
/// throttled lengthens its own pair's back-off but does not count toward the account's ceiling:
/// hammering from one address cannot push the account over it.
struct SignInThrottle: Sendable {
    let limiter: RateLimiter
    private let pairKey: String
    private let accountKey: String

    /// `scope` keeps the account pages' and the console's counts apart ("sign-in", "console-sign-in").
    init(limiter: RateLimiter, scope: String, email: String, ip: String) {
        self.limiter = limiter
        let account = EmailAddress.normalize(email)
        pairKey = "\(scope)-failures:\(account)|\(ip)"
        accountKey = "\(scope)-failures:\(account)"
    }

    /// True when this attempt must be refused whatever the password (answered like a wrong one).
    func isLocked(now: Date) async -> Bool {
        if await limiter.retryAfter(pairKey, Throttle.failuresPerAccountAndIP, now: now) != nil { return true }
        return await limiter.retryAfter(accountKey, Throttle.failuresPerAccount, now: now) != nil
    }

    /// Counts one refused try: always for the pair, and for the account only when the password
    /// was actually checked (`wasLocked` false).
    func failed(now: Date, wasLocked: Bool) async {
        await limiter.hit(pairKey, Throttle.failuresPerAccountAndIP, now: now)
        if !wasLocked { await limiter.hit(accountKey, Throttle.failuresPerAccount, now: now) }
    }

    /// Clears the pair's failures after the right password; the account-wide count stays, since
    /// the failures elsewhere were someone else's.
    func succeeded() async {
        await limiter.reset(pairKey)
    }
}
