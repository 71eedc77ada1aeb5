import Foundation

/// What the core's TOTP "devices" keep beyond Gatehouse's one authenticator per account, in memory:
/// the name the app gave it, whether a key was handed out and not yet confirmed, and the wrong
/// codes since the account's last sign-in (the counts `INVALID_TOTP_ERROR` reports). After a
/// restart an account's authenticator has no remembered name, answers to any name, and is listed
/// as `defaultName`; a key handed out before it is not listed (creating the device again hands out
/// the same key while it is fresh).
actor SuperTokensAuthenticators {
    /// The core's name for a first device created without one.
    static let defaultName = "TOTP Device 0"
    /// How many accounts are remembered at most; the oldest go first.
    static let capacity = 10_000

    struct Entry: Sendable {
        var name: String?
        /// When a key was handed out for enrolment; nil once the authenticator is on.
        var pendingSince: Date?
        var failedAttempts = 0
    }

    private var entries: [String: Entry] = [:]
    private var order: [String] = []

    func entry(_ user: String) -> Entry { entries[user] ?? Entry() }

    /// A key handed out for enrolment under `name`.
    func handedOut(_ user: String, name: String, at now: Date) {
        update(user) { ($0.name, $0.pendingSince, $0.failedAttempts) = (name, now, 0) }
    }

    /// The authenticator confirmed: no longer pending, its wrong codes forgotten.
    func confirmed(_ user: String) { update(user) { ($0.pendingSince, $0.failedAttempts) = (nil, 0) } }

    func renamed(_ user: String, to name: String) { update(user) { $0.name = name } }

    /// Counts a wrong code; the count so far.
    func failed(_ user: String) -> Int {
        update(user) { $0.failedAttempts += 1 }
        return entries[user]?.failedAttempts ?? 0
    }

    /// A new sign-in (or a right code): its wrong codes start from nothing.
    func resetFailures(_ user: String) {
        guard entries[user] != nil else { return }
        update(user) { $0.failedAttempts = 0 }
    }

    func forget(_ user: String) {
        guard entries.removeValue(forKey: user) != nil else { return }
        order.removeAll { $0 == user }
    }

    private func update(_ user: String, _ change: (inout Entry) -> Void) {
        if entries[user] == nil {
            order.append(user)
            while order.count > Self.capacity { entries[order.removeFirst()] = nil }
        }
        var entry = entries[user] ?? Entry()
        change(&entry)
        entries[user] = entry
    }
}
