import AuthCore

/// The server's one password rule: `PasswordPolicy`'s length (8–128) and a minimum zxcvbn score. Every
/// way a person chooses a password — the pages, the console, and the PocketBase, InsForge, Descope and
/// SuperTokens APIs — asks this, each answering in its own error shape.
public struct PasswordRules: Sendable, Equatable {
    /// The lowest acceptable score (0–4): the default 2 refuses zxcvbn's weakest two levels, passwords
    /// guessed within a million tries (`password`, `12345678`, `password-123`).
    public var minimumScore: Int

    public static let defaultMinimumScore = 2
    public static let `default` = PasswordRules(minimumScore: defaultMinimumScore)

    public init(minimumScore: Int) { self.minimumScore = min(max(minimumScore, 0), 4) }

    /// Nil when `password` is acceptable, else what to tell the person who typed it.
    public func problem(with password: String, userInputs: [String] = []) -> String? {
        if let length = PasswordPolicy.problem(with: password) { return length }
        guard minimumScore > 0 else { return nil }
        return problem(with: PasswordStrength.estimate(password, userInputs: userInputs))
    }

    /// What an attacker knows of an account, which its password must not lean on: its addresses and
    /// its name. Every way a password is chosen for an account passes the same (sign-up, change,
    /// reset, a staff change), so one password gets one verdict.
    public static func userInputs(emails: [String], name: String?) -> [String] {
        emails + (name.map { [$0] } ?? [])
    }

    /// The rule's answer and the estimate behind it, from one zxcvbn run, for the strength meter. A
    /// password over the length limit is not estimated (zxcvbn's cost grows with length).
    public func judge(_ password: String, userInputs: [String] = []) -> (strength: PasswordStrength?, problem: String?) {
        let strength =
            password.count > PasswordPolicy.maximumLength ? nil : PasswordStrength.estimate(password, userInputs: userInputs)
        return (strength, PasswordPolicy.problem(with: password) ?? strength.flatMap(problem(with:)))
    }

    /// The strength half of the rule for an estimate already made.
    private func problem(with strength: PasswordStrength) -> String? {
        guard strength.score < minimumScore else { return nil }
        if strength.isCommonWord { return "This is a common password: choose one that is harder to guess." }
        return "This password is too easy to guess: add a few uncommon words or characters."
    }

    /// Text shown next to the password field.
    public var summary: String {
        minimumScore > 0 ? PasswordPolicy.summary + " Common passwords and simple patterns are refused." : PasswordPolicy.summary
    }
}
