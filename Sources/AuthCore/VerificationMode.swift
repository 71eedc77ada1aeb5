/// How a new account proves its email address; InsForge's three options.
public enum VerificationMode: String, Sendable, CaseIterable, Codable {
    /// Accounts are usable at once.
    case none
    /// A 6-digit code is mailed and typed on `/auth/verify`.
    case code
    /// A single-use link to `/auth/verify-link?token=` is mailed.
    case link
}
