import AuthCore
import Foundation

/// A batch of test accounts made from an email pattern: `test+{n}@example.com` becomes
/// `test+1@example.com` … `test+N@example.com`, all sharing one password.
public struct UserSeed: Sendable, Hashable {
    public static let placeholder = "{n}"
    /// A million: what large apps really have, seeded in well under a minute by the embedded backend.
    public static let maximumCount = 1_000_000

    public var count: Int
    public var pattern: String
    public var password: String
    public var verified: Bool

    public init(count: Int, pattern: String, password: String, verified: Bool = false) {
        self.count = count
        self.pattern = pattern.trimmingCharacters(in: .whitespacesAndNewlines)
        self.password = password
        self.verified = verified
    }

    /// The address of the `n`th account (1-based).
    public func email(_ n: Int) -> String {
        pattern.replacingOccurrences(of: Self.placeholder, with: String(n))
    }

    /// `email(_:)` with the pattern split once, for a seed that makes a million addresses.
    public var addressMaker: @Sendable (Int) -> String {
        let parts = pattern.components(separatedBy: Self.placeholder)
        guard parts.count == 2 else { return { [self] n in email(n) } }
        let (head, tail) = (parts[0], parts[1])
        return { head + String($0) + tail }
    }

    /// Every address of the batch, in order.
    public var emails: [String] { count > 0 ? (1...count).map(email) : [] }

    /// What is wrong with the request itself (fields `count`, `pattern`, `password`), before any
    /// address is looked up.
    public var problems: [FieldError] {
        var problems: [FieldError] = []
        if !(1...Self.maximumCount).contains(count) {
            problems.append(
                FieldError(field: "count", message: "Choose a number from 1 to \(CountText.grouped(Self.maximumCount))."))
        }
        if !pattern.contains(Self.placeholder) {
            problems.append(
                FieldError(field: "pattern", message: "Put {n} in the pattern where the number goes, e.g. test+{n}@example.com."))
        } else if !EmailAddress.isPlausible(email(1)) {
            problems.append(
                FieldError(field: "pattern", message: "The pattern must make valid email addresses, e.g. test+{n}@example.com."))
        }
        if let message = PasswordPolicy.problem(with: password) {
            problems.append(FieldError(field: "password", message: message))
        }
        return problems
    }
}
