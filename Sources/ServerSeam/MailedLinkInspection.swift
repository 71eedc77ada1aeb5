import Foundation

/// Telling whether a mailed link still works before anyone acts on it, so a page can say "this link
/// has expired or was used" instead of showing a form that fails only after it is filled in. Looking
/// spends nothing and counts no attempt (a mail scanner opening the link must not burn it). The
/// embedded backend has it; a remote backend's links are checked when they are used.
public protocol MailedLinkInspection: Sendable {
    /// True while the password-reset link's token is live: known, for a reset, not spent,
    /// superseded, out of tries or expired.
    func passwordResetLinkWorks(token: String) async throws -> Bool
}
