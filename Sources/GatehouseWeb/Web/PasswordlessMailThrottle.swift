import AuthCore
import Foundation

/// The limits on passwordless sign-in mails, one set for every way in (the sign-in page and the
/// InsForge API's `send-otp`): a 60 s cool-down and at most 10 an hour per address — whether or not
/// it has an account — and the per-IP mail budget. Answers are padded to one floor so an address
/// that gets a mail is not measurably slower than one that does not.
struct PasswordlessMailThrottle: Sendable {
    let env: PageEnvironment

    /// The wait before another mail of `kind` (`code`, `link`) to `email` from `remoteAddress`, else
    /// nil after counting this one.
    func wait(kind: String, email: String, remoteAddress: String) async -> Int? {
        let now = env.clock()
        let address = EmailAddress.normalize(email)
        if let wait = await env.limiter.retryAfter("passwordless-\(kind):\(address)", Throttle.resendPerEmail, now: now) {
            return wait
        }
        if let wait = await env.limiter.take("passwordless-hour:\(address)", Throttle.passwordlessPerEmail, now: now) {
            return wait
        }
        if let wait = await env.limiter.take("sends:\(remoteAddress)", Throttle.sendsPerIP, now: now) {
            return wait
        }
        await env.limiter.hit("passwordless-\(kind):\(address)", Throttle.resendPerEmail, now: now)
        return nil
    }

    /// The seconds left of the address's cool-down for `kind` (0 when it may ask again).
    func cooldown(kind: String, email: String) async -> Int {
        await env.limiter.retryAfter(
            "passwordless-\(kind):\(EmailAddress.normalize(email))", Throttle.resendPerEmail, now: env.clock()) ?? 0
    }

    /// Runs `answer`, answering no sooner than the verification resend's floor after it began.
    static func padded<T>(_ answer: () async throws -> T) async throws -> T {
        let floor = ContinuousClock.now.advanced(by: VerificationPages.resendAnswerFloor)
        let result = try await answer()
        try? await Task.sleep(until: floor)
        return result
    }
}

extension Throttle {
    /// Passwordless sign-in mails to one address: besides the 60 s cool-down, at most 10 an hour,
    /// so a code's five tries cannot add up to many guesses.
    static let passwordlessPerEmail = RateLimiter.Rule(limit: 10, window: 3600)
}
