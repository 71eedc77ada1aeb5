import Foundation

/// Reserved test addresses (`--test-address-suffix`, e.g. `+gatehouse_test@`): every emailed code
/// for an address containing the suffix is `424242`, and nothing is mailed to it
/// (the embedded backend's mailer drops it), so a test suite signs such an address up and in without a mailbox. Only
/// on loopback (the server refuses the flag elsewhere): a fixed code is no secret.
public struct TestAddresses: Sendable, Equatable {
    /// What a reserved address contains, compared in lower case.
    public let suffix: String

    /// The code every reserved address gets.
    public static let code = "424242"

    /// Nil for an empty suffix.
    public init?(suffix: String) {
        let suffix = suffix.trimmingCharacters(in: .whitespaces).lowercased()
        guard !suffix.isEmpty else { return nil }
        self.suffix = suffix
    }

    /// Whether `email` is a reserved test address.
    public func reserves(_ email: String) -> Bool { email.lowercased().contains(suffix) }
}
