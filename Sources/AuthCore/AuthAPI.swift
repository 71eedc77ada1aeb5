import Foundation

/// The one seam between Gatehouse and whatever keeps the users: every front-end (account pages,
/// console, admin JSON API, the PocketBase- and InsForge-compatible APIs) and `AuthClient` reach
/// users only through it. `LocalBackend` implements it over the embedded SQLite store,
/// `PocketBaseBackend` over HTTP. Token-based and stateless: the caller keeps the `AuthSession`
/// (a browser session keeps it sealed beside its cookie; `AuthClient` in its `SessionStorage`).
///
/// A backend that lacks a capability throws `AuthError.notSupported(capability)` from the calls
/// that need it and leaves the capability out of `capabilities`; defaults for the optional calls
/// are in `AuthAPI+Defaults.swift`, so a backend without them needs no code.
public protocol AuthAPI: Sendable {
    /// What this backend can do; pages hide or explain what is missing.
    var capabilities: Set<Capability> { get }
    /// How new accounts verify their email on this backend.
    var verificationMode: VerificationMode { get }
    /// This backend, opening its sessions for `client` (see `SessionClient`).
    func opening(for client: SessionClient) -> any AuthAPI

    /// Creates an account and, unless verification is off, mails a code or link. A session comes
    /// back when the account is usable at once.
    func signUp(_ request: SignUpRequest) async throws -> SignUpOutcome
    /// Confirms an address with what was mailed: the 6-digit code, or — on backends that verify by
    /// link only (PocketBase) — the token from the mailed link.
    func verifyEmail(email: String, code: String) async throws -> VerificationOutcome
    /// Confirms an address with the token from a mailed link (`/auth/verify-link?token=`).
    func verifyEmailLink(token: String) async throws -> VerificationOutcome
    /// Mails a fresh code or link. Answers the same for unknown and already verified emails.
    func resendVerificationEmail(email: String) async throws
    /// Checks a password. Unknown emails cost the same time and fail the same way as wrong passwords.
    func signIn(email: String, password: String) async throws -> AuthSession
    /// Ends the session on the backend where it can (PocketBase tokens are stateless: nothing to do).
    func signOut(_ session: AuthSession) async throws
    /// The session's account as it is now; `.sessionExpired` once the session is revoked or its
    /// account disabled or deleted.
    func currentUser(_ session: AuthSession) async throws -> User
    /// Shallow-merges profile fields (`null` removes a key) as the session's user.
    func setProfile(_ patch: [String: JSONValue], session: AuthSession) async throws -> User
    /// A renewed session; throws `.sessionNotRefreshable` for impersonation sessions.
    func refresh(_ session: AuthSession) async throws -> AuthSession
    func authMethods() async throws -> AuthMethods
    func externalAuths(userID: UserID, session: AuthSession) async throws -> [ExternalAuth]
    func unlinkExternalAuth(userID: UserID, provider: String, session: AuthSession) async throws

    // Provider identities Gatehouse's own OAuth flows vouch for (`Capability.externalSignIn`).
    /// Signs in with a provider identity: the linked account when (provider, subject) is known;
    /// else the account with the same address when *both* sides have it verified (then linked);
    /// else a new account when `allowCreate`. An existing account with that address that is not
    /// verified on both sides is never taken over (pre-hijacking defence):
    /// `ExternalAuthError.emailBelongsToAnotherAccount`.
    func signIn(with identity: ExternalIdentity, allowCreate: Bool) async throws -> ExternalSignIn
    /// Links the identity to the session's account. Fails with `.alreadyLinked` when another
    /// account holds it, or when this account already has another identity of that provider.
    func link(_ identity: ExternalIdentity, session: AuthSession) async throws -> ExternalAuth

    // Administration (the console): authorised by the backend's own admin credentials.
    var admin: any AuthAdminAPI { get }
}

/// What support staff do to accounts. The embedded backend trusts its in-process caller; remote
/// backends authenticate as their superuser (PocketBase's `_superusers`).
public protocol AuthAdminAPI: Sendable {
    func listUsers(_ query: UserQuery) async throws -> UserPage
    func user(_ id: UserID) async throws -> User
    func createUser(_ new: NewUser) async throws -> User
    func updateUser(_ id: UserID, _ update: UserUpdate) async throws -> User
    func setVerified(_ id: UserID, _ verified: Bool) async throws -> User
    func deleteUser(_ id: UserID) async throws
    /// A session as `id` for at most one hour; never refreshable. `actor` names who asked (kept
    /// with the session where the backend can keep it).
    func impersonate(_ id: UserID, duration: TimeInterval, actor: String) async throws -> AuthSession
    /// Records a link to a provider identity (seeding and support; sign-in with OAuth is elsewhere).
    func linkExternalAuth(userID: UserID, provider: String, providerID: String) async throws -> ExternalAuth
    /// A user's linked provider identities, read with admin rights.
    func externalAuths(of userID: UserID) async throws -> [ExternalAuth]
    /// Removes a user's link to `provider`, with admin rights.
    func unlinkExternalAuth(of userID: UserID, provider: String) async throws
    /// Creates `seed.count` accounts from `seed.pattern`, all or none. An invalid seed or any
    /// address already taken → `AuthError.validation` (fields `count`, `pattern`, `password`).
    func seedUsers(_ seed: UserSeed) async throws -> [UserID]
    /// Every problem `importUsers` would refuse `rows` for, without writing anything.
    func importProblems(_ rows: [ImportedUser]) async throws -> [ImportProblem]
    /// Creates every row's account, all or none; any bad row → `ImportRejected` naming each one.
    func importUsers(_ rows: [ImportedUser]) async throws -> [UserID]
    /// Deletes these accounts and ends their sessions; returns how many existed.
    func deleteUsers(_ ids: [UserID]) async throws -> Int
}

extension AuthAdminAPI {
    /// Impersonation asked for through the API, with no named person behind it.
    public func impersonate(_ id: UserID, duration: TimeInterval) async throws -> AuthSession {
        try await impersonate(id, duration: duration, actor: "admin-api")
    }

    public func setVerified(_ id: UserID, _ verified: Bool) async throws -> User {
        try await updateUser(id, UserUpdate(verified: verified))
    }
}

/// The longest impersonation any backend grants (DESIGN.md: ≤ 1 h).
public enum Impersonation {
    public static let maximumDuration: TimeInterval = 3600

    /// `requested` clamped to 1 s…1 h.
    public static func clamp(_ requested: TimeInterval) -> TimeInterval {
        min(max(requested, 1), maximumDuration)
    }
}
