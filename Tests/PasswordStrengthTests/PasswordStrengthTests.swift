import PasswordStrength
import Testing

@Suite struct PasswordStrengthTests {
    @Test(arguments: ["password", "12345678", "password123", "password-123", "qwertyui", "letmein1", "aaaaaaaaaaaa"])
    func theDefaultRuleRefusesWhatIsGuessedFirst(_ password: String) {
        #expect(PasswordRules.default.problem(with: password) != nil)
        #expect(PasswordStrength.estimate(password).score < 2)
    }

    @Test(arguments: ["correct horse battery staple", "quiet-otter-123", "Tr0ub4dor&3x", "a brand new passphrase"])
    func theDefaultRuleAcceptsPassphrases(_ password: String) {
        #expect(PasswordRules.default.problem(with: password) == nil)
    }

    @Test func aCommonPasswordIsNamedAsOne() {
        #expect(
            PasswordRules.default.problem(with: "password") == "This is a common password: choose one that is harder to guess.")
        #expect(PasswordRules.default.problem(with: "password-123")?.contains("too easy to guess") == true)
    }

    @Test func lengthComesFirstAndScoreZeroChecksOnlyLength() {
        #expect(PasswordRules.default.problem(with: "short") == "Use at least 8 characters.")
        #expect(PasswordRules(minimumScore: 0).problem(with: "password") == nil)
        #expect(PasswordRules(minimumScore: 0).problem(with: "short") != nil)
        #expect(PasswordRules(minimumScore: 9).minimumScore == 4)
    }

    @Test func theAccountsOwnAddressAndNameCountAsGuessable() {
        let password = "gracehopper1906"
        let alone = PasswordStrength.estimate(password)
        let known = PasswordStrength.estimate(password, userInputs: ["grace.hopper@navy.example", "Grace Hopper"])
        #expect(known.guessesLog10 < alone.guessesLog10)
    }

    /// A user input counts up to its first 256 characters, as much as any real address or name has:
    /// the strength meter is anyone's to ask, and zxcvbn checks the password against every user word.
    @Test func aUserInputCountsOnlyAsFarAsARealAddressOrNameGoes() {
        let password = "quizzicalotter"
        let alone = PasswordStrength.estimate(password)
        let within = PasswordStrength.estimate(password, userInputs: [String(repeating: "a", count: 240) + " quizzicalotter"])
        #expect(within.guessesLog10 < alone.guessesLog10, "a word within the bound is one an attacker tries first")
        let beyond = PasswordStrength.estimate(password, userInputs: [String(repeating: "a", count: 260) + " quizzicalotter"])
        #expect(beyond.guessesLog10 == alone.guessesLog10, "past it, the input is not read")
    }

    @Test func scoresFollowZxcvbnThresholds() {
        #expect(PasswordStrength.estimate("password").label == "Very weak")
        #expect(PasswordStrength.estimate("correct horse battery staple").label == "Very strong")
    }
}
