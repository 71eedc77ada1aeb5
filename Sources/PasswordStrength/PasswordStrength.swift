import CZxcvbn
import Foundation

/// How hard a password is to guess, as zxcvbn estimates it (Dropbox's method, in the zxcvbn-c
/// implementation): common passwords, dictionary words, names, keyboard walks, repeats, sequences and
/// dates are counted as the few guesses they take, not as random characters.
public struct PasswordStrength: Sendable, Equatable {
    /// zxcvbn's score: 0 (guessed within 10³ tries) … 4 (over 10¹⁰).
    public let score: Int
    /// log₁₀ of the estimated guesses.
    public let guessesLog10: Double
    /// True when a single common password or dictionary word (leet-speak included) is the whole password.
    public let isCommonWord: Bool

    /// The estimate for `password`; `userInputs` (the address, the name) count as words an attacker
    /// who knows the account would try first.
    public static func estimate(_ password: String, userInputs: [String] = []) -> PasswordStrength {
        let words = userInputs.flatMap(Self.words).map { strdup($0) }
        defer { words.forEach { free($0) } }
        var dictionary: [UnsafePointer<CChar>?] = words.map { UnsafePointer($0) } + [nil]
        var matches: UnsafeMutablePointer<ZxcMatch_t>?
        let bits = dictionary.withUnsafeMutableBufferPointer { ZxcvbnMatch(password, $0.baseAddress, &matches) }
        defer { ZxcvbnFreeInfo(matches) }
        let log10 = bits * Foundation.log10(2.0)
        var common = false
        if let only = matches, only.pointee.Next == nil, only.pointee.Begin == 0,
            Int(only.pointee.Length) == password.unicodeScalars.count
        {
            let kind = only.pointee.Type.rawValue & ~UInt32(MULTIPLE_MATCH.rawValue)
            common = [DICTIONARY_MATCH, DICT_LEET_MATCH, USER_MATCH, USER_LEET_MATCH].map(\.rawValue).contains(kind)
        }
        return PasswordStrength(score: Self.score(guessesLog10: log10), guessesLog10: log10, isCommonWord: common)
    }

    /// zxcvbn's thresholds: under 10³, 10⁶, 10⁸ and 10¹⁰ guesses.
    static func score(guessesLog10: Double) -> Int {
        switch guessesLog10 {
        case ..<3: 0
        case ..<6: 1
        case ..<8: 2
        case ..<10: 3
        default: 4
        }
    }

    /// A word for the meter.
    public var label: String { ["Very weak", "Weak", "Fair", "Strong", "Very strong"][score] }

    /// How much of one user input counts: an address is at most 254 characters, a name 100. zxcvbn
    /// checks every part of the password against every user word, so without a bound a megabyte of
    /// "name" sent to the strength meter (which anyone may ask) cost most of a second.
    static let userInputLimit = 256

    /// An address gives its local part and domain words; a name its words (within `userInputLimit`).
    private static func words(_ input: String) -> [String] {
        input.prefix(userInputLimit).lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init).filter {
            $0.count >= 3
        }
    }
}
