import AuthCore
import Foundation
import HTTPServer
import Secrets
import Store

/// Checks a superuser's email and password with the same throttling and equal-cost rules as
/// user sign-in: unknown emails cost one hash, a locked (account, source) pair answers like a
/// wrong password.
struct StaffSignIn: Sendable {
    let database: AppDatabase
    let passwords: PasswordHasher
    let limiter: RateLimiter
    let clock: @Sendable () -> Date

    enum Outcome {
        case signedIn(SuperuserRecord)
        case refused(reason: String)
        case throttled(retryAfter: Int)
    }

    func attempt(email: String, password: String, from ip: String) async throws -> Outcome {
        let now = clock()
        if let wait = await limiter.take("console-sign-in:\(ip)", Throttle.signInPerIP, now: now) {
            return .throttled(retryAfter: wait)
        }
        let throttle = SignInThrottle(limiter: limiter, scope: "console-sign-in", email: email, ip: ip)
        let locked = await throttle.isLocked(now: now)
        guard let superuser = try await database.superuser(email: email) else {
            await passwords.dummyVerify(password)
            await throttle.failed(now: now, wasLocked: locked)
            return .refused(reason: locked ? "locked" : "unknown_superuser")
        }
        let matches = await passwords.verify(password, against: superuser.passwordHash)
        guard matches, !locked else {
            await throttle.failed(now: now, wasLocked: locked)
            return .refused(reason: locked ? "locked" : "wrong_password")
        }
        await throttle.succeeded()
        return .signedIn(superuser)
    }
}
