import AuthCore
import Foundation

extension Budgets {
    /// Forgets every count, so every budget is full again (the test controls' reset).
    func forgetAll() async throws {
        try await database.withRateLedger { try $0.forgetAll() }
    }

    /// Forgets the counts kept for the account at `email` — the mails to its address and its
    /// password's wrong tries from every source — so each of those budgets is full again (the test
    /// controls' `expire-now` of `budgets`); how many events were forgotten. Sources' budgets stay.
    func forgetAccount(_ email: String) async throws -> Int {
        let address = EmailAddress.normalize(email)
        var keys = [
            Budget.verificationMailsTo(address), .resetMailsTo(address), .signInMailsTo(address, .code),
            .signInMailsTo(address, .link), .signInMailsPerHourTo(address)
        ].map(\.key)
        for check in [PasswordCheck.signIn, .reauthentication, .emailChange] {
            let accountKey = check.failuresKey(address)
            let windows = try await database.rateWindows(keyPrefix: accountKey, since: .distantPast)
            keys += windows.keys.filter { $0 == accountKey || $0.hasPrefix(accountKey + "|") }
        }
        return try await database.withRateLedger { [keys] ledger in
            var forgotten = 0
            for key in keys {
                forgotten += try ledger.window(key: key, since: .distantPast).count
                try ledger.forget(key: key)
            }
            return forgotten
        }
    }
}
