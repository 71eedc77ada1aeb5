import Foundation

/// Accounts a sign-up made that the owner of the address may remove through the sign-up mail's
/// "this wasn't me" link while nobody has proven the address. The embedded backend has it; remote
/// backends mail their own.
public protocol DisownableAccounts: Sendable {
    /// The address of the account `token` would remove; nil when none (unknown, spent or expired
    /// token, or an account proven since).
    func disownableAccount(token: String) async throws -> String?
    /// Removes the account `token` names; its address, or nil when none was removed.
    func disownAccount(token: String) async throws -> String?
}
