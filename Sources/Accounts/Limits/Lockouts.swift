import AuthCore
import Foundation
import Store

/// One active back-off of password sign-in: an address (`source`) that tried an account's
/// password wrong too often, and until when its tries are refused. Staff see it on the user page
/// and lift it (`UserAdministration.unlock`); the person is told the same wait on the sign-in page.
public struct Lockout: Sendable, Equatable {
    /// The IP address the failed tries came from.
    public var source: String
    /// Failed tries from there in the back-off's window.
    public var tries: Int
    /// When the next try is admitted.
    public var until: Date
}

extension Budgets {
    /// The sign-in back-offs active now for the account at `email`, soonest end first.
    func lockouts(of email: String) async throws -> [Lockout] {
        try await activeBackOffs(prefix: Self.pairPrefix(EmailAddress.normalize(email))).values.sorted { $0.until < $1.until }
    }

    /// The addresses (normalized) with at least one active sign-in back-off, at most `limit`: the
    /// users list's "locked" filter. Unknown addresses are among them; the caller keeps accounts.
    func lockedAddresses(limit: Int) async throws -> [String] {
        // Under the bare prefix a lockout's source reads "address|ip".
        let emails = try await activeBackOffs(prefix: Self.signInFailures).values.compactMap { lockout in
            lockout.source.split(separator: "|", maxSplits: 1).first.map(String.init)
        }
        return Array(Set(emails).sorted().prefix(limit))
    }

    /// Forgets the failed sign-in tries of `email` from `source` (every source when nil): the
    /// next try is admitted at once. The act's audit is its caller's.
    func unlock(_ email: String, source: String?) async throws {
        let prefix = Self.pairPrefix(EmailAddress.normalize(email))
        let keys: [String]
        if let source { keys = [prefix + source] } else { keys = Array(try await activeBackOffs(prefix: prefix).keys) }
        try await database.withRateLedger { ledger in
            for key in keys { try ledger.forget(key: key) }
        }
    }

    /// The (account, source) pair keys `beginPasswordTry` counts sign-in failures under, up to the source.
    private static func pairPrefix(_ normalized: String) -> String { "\(signInFailures)\(normalized)|" }

    /// Where every sign-in failure count's key starts.
    private static let signInFailures = "\(PasswordCheck.signIn.rawValue)-failures:"

    /// The pair keys under `prefix` whose back-off is running now, each with its lockout (its
    /// source is the key past `prefix`).
    private func activeBackOffs(prefix: String) async throws -> [String: Lockout] {
        let now = clock()
        let windows = try await database.rateWindows(
            keyPrefix: prefix, since: now.addingTimeInterval(-PasswordTry.backOffWindow))
        return windows.reduce(into: [:]) { active, entry in
            guard entry.key.contains("|"), let wait = PasswordTry.backOffWait(entry.value, now: now) else { return }
            active[entry.key] = Lockout(
                source: String(entry.key.dropFirst(prefix.count)), tries: entry.value.count,
                until: now.addingTimeInterval(TimeInterval(wait)))
        }
    }
}
