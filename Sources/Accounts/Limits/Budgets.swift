import Foundation
import Logging
import Secrets
import Store

/// The owner of every limit (`Budget`): the only holder of the rate-limit counts, which live in
/// SQLite (`rate_limit_events`) so a restart does not hand an attacker a fresh budget. Each take is
/// one transaction — the check and the record together — so parallel requests can never all pass
/// a check that only some of them fit. When the counts cannot be read, the request is refused for
/// a minute rather than let through unlimited.
public struct Budgets: Sendable {
    let database: AppDatabase
    /// Off only for load tests (`--no-rate-limits`): then every budget has room.
    let enabled: Bool
    /// The server's clock and each account's (`AccountClocks`): a source's budget counts in the
    /// server's time, a budget kept for an address or an account in that account's.
    let clocks: AccountClocks
    let logger: Logger
    /// Spends the dummy hash on a locked password try (`beginPasswordTry`).
    let passwords: PasswordHasher

    init(
        database: AppDatabase, enabled: Bool, clocks: AccountClocks, logger: Logger, passwords: PasswordHasher
    ) {
        self.database = database
        self.enabled = enabled
        self.clocks = clocks
        self.logger = logger
        self.passwords = passwords
    }

    /// The wait answered when the counts cannot be read.
    static let unavailableWait = 60

    /// Why a request was refused: the first budget it needed that had no room, and the seconds
    /// until it has.
    public struct Refusal: Sendable, Equatable {
        public var budget: Budget
        public var retryAfter: Int
    }

    /// Takes one slot of each of `budgets` — of all of them or, when one has no room, of none — and
    /// returns the refusal in that case. Every budget is checked in the same transaction.
    @discardableResult
    func take(_ budgets: Budget...) async -> Refusal? {
        guard enabled, let first = budgets.first else { return nil }
        let serverNow = clocks.clock()
        var timed: [(budget: Budget, now: Date)] = []
        for budget in budgets { timed.append((budget, await now(for: budget))) }
        do {
            return try await database.withRateLedger { [timed] ledger in
                for (budget, now) in timed {
                    let rule = budget.rule
                    let window = try ledger.window(key: budget.key, since: now.addingTimeInterval(-rule.window))
                    if let wait = Self.wait(window, rule, now: now) { return Refusal(budget: budget, retryAfter: wait) }
                }
                for (budget, now) in timed { try ledger.record(key: budget.key, at: now, serverNow: serverNow) }
                return nil
            }
        } catch {
            logger.error("rate-limit counts unreadable; refusing for now", metadata: ["error": "\(error)"])
            return Refusal(budget: first, retryAfter: Self.unavailableWait)
        }
    }

    /// Seconds until `budget` has room again, 0 when it has: for pages that show a cool-down.
    func wait(_ budget: Budget) async -> Int {
        guard enabled else { return 0 }
        let now = await now(for: budget)
        do {
            let window = try await database.rateWindow(key: budget.key, since: now.addingTimeInterval(-budget.rule.window))
            return Self.wait(window, budget.rule, now: now) ?? 0
        } catch {
            logger.error("rate-limit counts unreadable", metadata: ["error": "\(error)"])
            return Self.unavailableWait
        }
    }

    /// The time `budget` counts in: its account's for a budget kept per address, else the server's.
    private func now(for budget: Budget) async -> Date {
        guard let address = budget.address else { return clocks.clock() }
        return await clocks.now(forAddress: address)
    }

    /// Seconds until one more event fits `rule`, or nil when it fits now: the window's oldest event
    /// is the one that must age out first.
    static func wait(_ window: RateWindow, _ rule: Budget.Rule, now: Date) -> Int? {
        guard window.count >= rule.limit, let oldest = window.oldest else { return nil }
        return max(1, Int(oldest.addingTimeInterval(rule.window).timeIntervalSince(now).rounded(.up)))
    }
}
