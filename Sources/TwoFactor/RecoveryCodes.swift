/// One-time recovery codes for when the authenticator is lost. This module only makes and normalizes them;
/// the caller hashes them for storage and marks each one used.
public enum RecoveryCodes {
    /// Lowercase letters and digits without the look-alikes 0/o, 1/l/i: 31 symbols, so a 10-symbol code carries
    /// about 49.5 bits.
    public static let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")

    /// `count` distinct codes like `ab3k9-x7q2m`: ten random symbols from `alphabet`, grouped five and five.
    public static func generate(count: Int = TOTPRules.recoveryCodeCount) -> [String] {
        var generator = SystemRandomNumberGenerator()
        var codes: [String] = []
        var seen: Set<String> = []
        while codes.count < count {
            let symbols = (0..<10).map { _ in alphabet.randomElement(using: &generator)! }
            let code = String(symbols[0..<5]) + "-" + String(symbols[5..<10])
            if seen.insert(code).inserted {
                codes.append(code)
            }
        }
        return codes
    }

    /// What a person typed, reduced for comparison: lowercased, with spaces (any whitespace) and dashes dropped.
    /// `generate`'s codes normalize to their ten symbols.
    public static func normalize(_ typed: String) -> String {
        String(typed.lowercased().filter { !$0.isWhitespace && $0 != "-" })
    }
}
