/// Errors every backend reports in the same words, so pages and APIs can answer them alike.
///
/// These are the errors meant for apps: every case can reach an app through `AuthClient` (linked
/// accounts have `ExternalAuthError` beside it), and the server maps each one to its wire
/// envelopes. A refusal only Gatehouse's own front-ends meet belongs in ServerSeam instead, as
/// `ImportRejected` does; add a case here only when an app on the client library can see it.
public enum AuthError: Error, Sendable, Equatable {
    /// Wrong email or password, unknown email, or a disabled or locked account: deliberately one case.
    case invalidCredentials
    /// The password was right but the email address is not verified yet.
    case emailNotVerified(email: String)
    case userNotFound
    case emailExists
    /// A code or link that is wrong or unknown.
    case invalidCode
    /// A code or link that is expired, already used, or killed by too many wrong tries.
    case codeExpired
    /// Too many attempts; try again after this many seconds.
    case rateLimited(retryAfter: Int)
    /// Input that breaks a rule, field by field.
    case validation([FieldError])
    /// The access token is missing, expired or revoked: sign in again.
    case sessionExpired
    /// This session cannot be refreshed (impersonation tokens are not refreshable).
    case sessionNotRefreshable
    /// The backend cannot do this at all.
    case notSupported(Capability)
    /// A magic link opened in another browser than the one that asked: nothing was spent; confirm
    /// "continue as `email`?" and sign in again without a binding.
    case magicLinkOpenedElsewhere(email: String)
    /// The backend could not be reached; the text describes the underlying error (see `AuthError.network(_:)`).
    case network(String)
    /// The backend answered with an error Gatehouse has no better name for.
    case server(status: Int, code: String, message: String)
}

/// One field's problem, with a message meant for the person who typed it.
public struct FieldError: Sendable, Equatable, Codable {
    public var field: String
    public var message: String
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

extension AuthError {
    /// A network failure carrying the underlying error's description (errors are not `Equatable`,
    /// so the case keeps its text).
    public static func network(_ underlying: any Error) -> AuthError {
        .network(String(describing: underlying))
    }
}
