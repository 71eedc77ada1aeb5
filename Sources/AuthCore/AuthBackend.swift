import Foundation

/// The seam between Gatehouse's front-ends and whatever keeps the users: the embedded SQLite
/// store today, a real PocketBase or InsForge behind the same calls later.
public protocol AuthBackend: Sendable {
    /// What this backend can do; pages hide or explain what is missing.
    var capabilities: Set<Capability> { get }
    /// How new accounts verify their email on this backend.
    var verificationMode: VerificationMode { get }

    /// Creates an account and, unless verification is off, mails a code or link.
    func signUp(_ request: SignUpRequest) async throws -> SignUpResult
    /// Checks a 6-digit code; a right code verifies the account and is spent.
    func verifyEmail(email: String, code: String) async throws -> User
    /// Checks a mailed link's token; a right token verifies the account and is spent.
    func verifyEmailLink(token: String) async throws -> User
    /// Mails a fresh code or link. Answers the same for unknown and already verified emails.
    func resendVerification(email: String) async throws
    /// Checks a password. Unknown emails cost the same time and fail the same way as wrong passwords.
    func signIn(email: String, password: String) async throws -> User
    /// The current state of one account.
    func user(_ id: UserID) async throws -> User
    /// Shallow-merges profile fields (`null` removes a key) and returns the updated account.
    func setProfile(userID: UserID, patch: [String: JSONValue]) async throws -> User

    // Proxy mode (defaults in AuthBackend+Credential.swift): a remote backend hands back a
    // credential at sign-in, and later calls act as the user with it. In-process backends ignore it.
    /// Checks a password and returns the account with the backend's credential for it, if any.
    func signInForSession(email: String, password: String) async throws -> BackendSignIn
    /// The account, read as the signed-in user when a credential is given.
    func user(_ id: UserID, credential: BackendCredential?) async throws -> User
    /// `setProfile`, made as the signed-in user when a credential is given.
    func setProfile(userID: UserID, patch: [String: JSONValue], credential: BackendCredential?) async throws -> User
    /// A fresh credential when `credential` is about to expire and can be renewed, else nil.
    func renewedCredential(_ credential: BackendCredential) async throws -> BackendCredential?
    /// What a browser session keeps to act as `session`'s user later (an impersonation, say): the
    /// remote backend's token, or nil where the backend needs none (in process).
    func credential(for session: AuthSession) throws -> BackendCredential?
    /// The credential behind a browser session that impersonates `userID`: a remote backend's own
    /// impersonation token (non-refreshable, `duration` at most), or nil where the browser session
    /// alone is enough (in process).
    func impersonationCredential(of userID: UserID, duration: TimeInterval, actor: String) async throws -> BackendCredential?

    // Linked provider identities (`Capability.externalSignIn`; defaults in AuthBackend+Credential.swift
    // refuse with `notSupported`).
    /// The identities linked to an account, oldest first.
    func externalAuths(userID: UserID) async throws -> [ExternalAuth]
    /// Signs in with a provider identity: the linked account when (provider, subject) is known;
    /// else the account with the same address when *both* sides have it verified (then linked);
    /// else a new account when `allowCreate`. An existing account with that address that is not
    /// verified on both sides is never taken over (pre-hijacking defence):
    /// `ExternalAuthError.emailBelongsToAnotherAccount`.
    func signIn(with identity: ExternalIdentity, allowCreate: Bool) async throws -> ExternalSignIn
    /// Links the identity to a signed-in account. Fails with `.alreadyLinked` when another
    /// account holds it, or when this account already has another identity of that provider.
    func link(_ identity: ExternalIdentity, to userID: UserID) async throws -> ExternalAuth
    /// Removes a link; refused with `.lastSignInMethod` when it would leave no way to sign in.
    func unlink(provider: String, from userID: UserID) async throws
}

/// What the sign-up form sends.
public struct SignUpRequest: Sendable, Equatable {
    public var email: String
    public var password: String
    public var name: String?

    public init(email: String, password: String, name: String? = nil) {
        self.email = email
        self.password = password
        self.name = name
    }
}

/// The new account and whether it must verify its email before signing in.
public struct SignUpResult: Sendable, Equatable {
    public var user: User
    public var requireEmailVerification: Bool

    public init(user: User, requireEmailVerification: Bool) {
        self.user = user
        self.requireEmailVerification = requireEmailVerification
    }
}
