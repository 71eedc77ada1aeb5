import AuthCore

/// What confirms an email change whose asker's live session was the proof: a 6-digit code or a
/// single-use link, mailed to the new address. The link opens Gatehouse's confirmation page, or
/// `appURL` with its token as `t` (Descope's `redirectUrl`), from where the app confirms it.
public enum MailedProof: Sendable, Equatable {
    case code
    case link(appURL: String?)

    /// How the log names it.
    public var name: String {
        switch self {
        case .code: "code"
        case .link: "link"
        }
    }
}

/// A backend that can move an account to a new address on its live session's word, as Descope's
/// `update/email` does (the refresh JWT is the proof): the code or link mailed to the new address
/// confirms the change without the account's password. The embedded backend has it; a way in
/// whose policy allows it (`WayInPolicy.emailChangeProvenBySession`) uses it.
public protocol SessionProvenEmailChanges: AuthAPI {
    /// Mails the new address a code or link (the old one a notice), answering alike when the new
    /// address is taken. `.validation` on `email` for a malformed or unchanged address.
    func requestEmailChange(newEmail: String, session: AuthSession, confirmedBy proof: MailedProof) async throws
    /// Whether the account at `email` has a live change waiting for its code (so a code sent for
    /// that address may be one, not a sign-in code). Compares no secret.
    func awaitsEmailChangeCode(email: String) async throws -> Bool
    /// Confirms with a code such a request mailed, for the account now at `email`; returns the
    /// account at its new, verified address. A wrong code `.invalidCode`, a spent or expired one
    /// `.codeExpired`, the address taken meanwhile `.emailExists`.
    func confirmEmailChange(email: String, code: String) async throws -> User
}
