import AuthCore
import Foundation
import Store

/// Which password check a try is for. Each keeps its own failure counts (a wrong password on the
/// email-change form does not lock sign-in), and sign-ins also spend their source's tries.
enum PasswordCheck: String, Sendable {
    /// Sign-in on the pages or an app's API, and the password change (which re-checks it the same way).
    case signIn = "sign-in"
    /// A superuser's sign-in: the console, the admin API, PocketBase's `_superusers`.
    case staffSignIn = "console-sign-in"
    /// A person re-entering the password for a security change (authenticator on or off).
    case reauthentication = "reauth"
    /// A superuser re-entering the password (authenticator off).
    case staffReauthentication = "console-reauth"
    /// The email-change form's password.
    case emailChange = "email-change"

    /// The source's budget a try also takes, if any.
    func sourceBudget(ip: String) -> Budget? {
        switch self {
        case .signIn: .signInTries(ip: ip, .people)
        case .staffSignIn: .signInTries(ip: ip, .staff)
        case .reauthentication, .staffReauthentication, .emailChange: nil
        }
    }
}

/// One password try, admitted (or not) before the password is hashed. Failures are counted per
/// (account, source) with exponential back-off, plus a ceiling per account from everywhere, so a
/// stranger elsewhere cannot lock the owner out. The try is counted as a failure when it is
/// admitted, in the same transaction as the check — so parallel tries cannot all pass a check
/// that only five of them fit — and `Budgets.settle` takes the count back when the password was
/// right. A locked try is answered exactly like a wrong password by every caller, and never runs
/// the account's stored hash (an imported one may cost four ordinary hashes): it has already cost
/// the dummy hash an unknown account costs, so it takes the time of any other refused try.
struct PasswordTry: Sendable {
    public enum Admission: Sendable, Equatable {
        /// Check the password.
        case open
        /// The (account, source) pair is backing off or the account is at its ceiling for
        /// `retryAfter` seconds: refuse without checking the password (the dummy hash was already
        /// spent). Known and unknown addresses back off alike, so saying so reveals no account.
        case locked(retryAfter: Int)
        /// The source is over its sign-in tries (`Budget.signInTries`): nothing was counted.
        case throttled(retryAfter: Int)
    }

    /// What the password check found.
    enum Verdict: Sendable {
        /// The right password: the pair's failures are cleared and this try is not one.
        case right
        /// A wrong password (or an unknown account): the try stays counted.
        case wrong
        /// No verdict on the password (the backend failed): the try is forgotten.
        case none
    }

    /// Failed tries for one account from one source: five free in an hour, then the next waits
    /// 1 s, 2 s, 4 s … after the newest, at most 15 minutes. A try refused while locked counts too,
    /// so hammering only lengthens the hammerer's own wait.
    static let freeTries = 5
    static let backOffWindow: TimeInterval = 3600
    static let maximumDelay: TimeInterval = 900
    /// Failed tries for one account from everywhere (ASVS V2.2.1: at most 100 an hour), far above
    /// what the per-source back-off lets one address reach. Locked tries do not count here.
    static let ceiling = Budget.Rule(limit: 100, window: 3600)

    let admission: Admission
    /// The pair's key, cleared by a right password.
    let pairKey: String
    /// The events this try recorded: forgotten when it turns out not to be a failure.
    let pairEvent: Int64?
    let accountEvent: Int64?

    /// Seconds the pair must still wait after `window`'s failures, or nil when it may try now.
    static func backOffWait(_ window: RateWindow, now: Date) -> Int? {
        guard window.count >= freeTries, let newest = window.newest else { return nil }
        let exponent = min(window.count - freeTries, 30)
        let delay = min(pow(2, Double(exponent)), maximumDelay)
        let remaining = newest.addingTimeInterval(delay).timeIntervalSince(now)
        return remaining > 0 ? max(1, Int(remaining.rounded(.up))) : nil
    }
}

extension Budgets {
    /// Admits one try of `check` for `email` from `ip`, recording it in the same transaction. A
    /// locked try spends the dummy hash on `password` before it returns: the caller must not check it.
    func beginPasswordTry(_ check: PasswordCheck, email: String, password: String, ip: String) async -> PasswordTry {
        let attempt = await admitPasswordTry(check, email: email, ip: ip)
        if case .locked = attempt.admission { await passwords.dummyVerify(password) }
        return attempt
    }

    private func admitPasswordTry(_ check: PasswordCheck, email: String, ip: String) async -> PasswordTry {
        let account = EmailAddress.normalize(email)
        let pairKey = "\(check.rawValue)-failures:\(account)|\(ip)"
        let accountKey = "\(check.rawValue)-failures:\(account)"
        guard enabled else { return PasswordTry(admission: .open, pairKey: pairKey, pairEvent: nil, accountEvent: nil) }
        let now = clock()
        let source = check.sourceBudget(ip: ip)
        do {
            return try await database.withRateLedger { ledger in
                if let source {
                    let rule = source.rule
                    let tries = try ledger.window(key: source.key, since: now.addingTimeInterval(-rule.window))
                    if let wait = Self.wait(tries, rule, now: now) {
                        return PasswordTry(
                            admission: .throttled(retryAfter: wait), pairKey: pairKey, pairEvent: nil, accountEvent: nil)
                    }
                    try ledger.record(key: source.key, at: now)
                }
                let pair = try ledger.window(key: pairKey, since: now.addingTimeInterval(-PasswordTry.backOffWindow))
                let failures = try ledger.window(key: accountKey, since: now.addingTimeInterval(-PasswordTry.ceiling.window))
                let ceilingWait = Self.wait(failures, PasswordTry.ceiling, now: now)
                let pairEvent = try ledger.record(key: pairKey, at: now)
                guard PasswordTry.backOffWait(pair, now: now) != nil || ceilingWait != nil else {
                    let accountEvent = try ledger.record(key: accountKey, at: now)
                    return PasswordTry(admission: .open, pairKey: pairKey, pairEvent: pairEvent, accountEvent: accountEvent)
                }
                // The refused try counts too: the wait it answers is the one after it.
                let counted = RateWindow(count: pair.count + 1, oldest: pair.oldest ?? now, newest: now)
                let wait = max(PasswordTry.backOffWait(counted, now: now) ?? 0, ceilingWait ?? 0)
                return PasswordTry(
                    admission: .locked(retryAfter: wait), pairKey: pairKey, pairEvent: pairEvent, accountEvent: nil)
            }
        } catch {
            logger.error("rate-limit counts unreadable; refusing for now", metadata: ["error": "\(error)"])
            return PasswordTry(
                admission: .locked(retryAfter: Self.unavailableWait), pairKey: pairKey, pairEvent: nil, accountEvent: nil)
        }
    }

    /// Settles an admitted try with what the password check found; a locked or throttled try
    /// stays as it was counted.
    func settle(_ attempt: PasswordTry, _ verdict: PasswordTry.Verdict) async {
        guard enabled, attempt.admission == .open else { return }
        let pairKey = attempt.pairKey
        let ids = [attempt.pairEvent, attempt.accountEvent].compactMap { $0 }
        do {
            switch verdict {
            case .wrong:
                return
            case .right:
                try await database.withRateLedger { ledger in
                    try ledger.forget(key: pairKey)
                    try ledger.forget(ids: attempt.accountEvent.map { [$0] } ?? [])
                }
            case .none:
                try await database.withRateLedger { ledger in try ledger.forget(ids: ids) }
            }
        } catch {
            logger.error("a password try was not settled", metadata: ["error": "\(error)"])
        }
    }
}
