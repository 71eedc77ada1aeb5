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
    /// `resendVerificationEmail(email:)` for a caller that confirms with a link's token (PocketBase's
    /// SDKs): a backend that verifies by code mails the link as well. Defaults to the plain resend.
    func resendVerificationEmail(email: String, withLink: Bool) async throws
    /// Mails a fresh code or link to the session's own address: what a backend that mails only a
    /// signed-in person (SuperTokens' FDI) can do. Defaults to `resendVerificationEmail(email:)`.
    func resendVerificationEmail(session: AuthSession) async throws
    /// Checks a password: the session, or the second step the account owes. Unknown emails cost the
    /// same time and fail the same way as wrong passwords.
    func signIn(email: String, password: String) async throws -> SignInResult
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

    // The account lifecycle (issue 10). Each group is one capability; defaults refuse it.

    // Password reset and change (`.passwordReset`, `.passwordChange`).
    /// Mails a reset link (and, on backends that verify by code, a 6-digit code). Answers alike,
    /// and takes as long, for unknown addresses.
    func requestPasswordReset(email: String) async throws
    /// Trades a mailed reset code for the token `resetPassword` takes (InsForge's
    /// `exchange-reset-password-token`). A wrong, spent or expired code: `.invalidCode`/`.codeExpired`.
    func exchangePasswordResetCode(email: String, code: String) async throws -> String
    /// Sets a new password with a reset token (from the mailed link or the exchange) and ends every
    /// session of the account. The token works once.
    func resetPassword(token: String, newPassword: String) async throws -> User
    /// Replaces the password of the session's account after checking the current one (Descope's
    /// `replace`), and ends the account's other sessions. Returns the session to go on with, or the
    /// second step the fresh sign-in owes where the backend ends every session (PocketBase).
    func changePassword(currentPassword: String, newPassword: String, session: AuthSession) async throws -> SignInResult

    // Email change (`.emailChange`).
    /// After checking `password` (re-authentication), mails a confirmation link to `newEmail` and a
    /// notice to the current address. The address changes only on confirmation. A `newEmail` that
    /// another account already has (in any letter case) answers exactly like a free one and gets no
    /// link, so the call reveals no account. Wrong password: `.invalidCredentials`; a malformed or
    /// unchanged address: `.validation` on the field `email`.
    /// `password` nil: the session alone stands for the person (an app's token on the PocketBase
    /// API, whose `request-email-change` takes no password; the link to the new address decides).
    func requestEmailChange(newEmail: String, password: String?, session: AuthSession) async throws
    /// Whether `confirmEmailChange` needs the account's password again (PocketBase asks for it;
    /// the embedded backend does not), so a confirmation page knows to ask without naming the backend.
    var confirmsEmailChangeWithPassword: Bool { get }
    /// Confirms a change with the mailed token (single use) and, where the backend asks for it, the
    /// password. The new address must still be free (`.emailExists`, nothing changed); it becomes
    /// the account's verified address. Every session of the account ends except `keeping`, when it
    /// is a live session of that very account: the result's `session` is then the one to go on with
    /// (the same one, or a new one where the backend ends every token on an email change).
    func confirmEmailChange(token: String, password: String?, keeping: AuthSession?) async throws -> EmailChangeConfirmation

    // Passwordless sign-in (`.emailOTP`, `.magicLink`).
    /// Mails a one-time 6-digit code and returns the id to sign in with. Unknown addresses get an id
    /// too (and, with `allowSignUp`, an account once the code is right).
    func requestEmailOTP(email: String, allowSignUp: Bool) async throws -> String
    /// Signs in with a mailed one-time code.
    func signIn(otpID: String, code: String) async throws -> SignInResult
    /// Mails a single-use sign-in link. `browserBinding` (a hash of a nonce kept in the asking
    /// browser) is stored with it, so the link signs in at once only in that browser.
    func requestMagicLink(email: String, allowSignUp: Bool, browserBinding: String) async throws
    /// Signs in with a magic link's token. With a `browserBinding` that is not the asking browser's,
    /// nothing is spent and `.magicLinkOpenedElsewhere(email:)` names the account, so the page can ask
    /// "continue as …?"; nil means the person confirmed that.
    func signIn(magicLinkToken: String, browserBinding: String?) async throws -> SignInResult

    // TOTP and recovery codes (`.totp`); any sign-in of an account with TOTP on answers
    // `SignInResult.secondStep(challenge)` instead of a session.
    func totpStatus(session: AuthSession) async throws -> TOTPStatus
    /// A fresh key, not yet on: `confirmTOTPEnrollment` turns it on.
    func beginTOTPEnrollment(session: AuthSession) async throws -> TOTPEnrollment
    /// Turns TOTP on with a first right code; returns the recovery codes, shown this once.
    func confirmTOTPEnrollment(code: String, session: AuthSession) async throws -> [String]
    /// Turns TOTP off after checking the password.
    func disableTOTP(password: String, session: AuthSession) async throws
    /// New recovery codes (the old ones stop working) after checking the password.
    func regenerateRecoveryCodes(password: String, session: AuthSession) async throws -> [String]
    /// Completes a sign-in that answered `.secondStep` (`.mfa`).
    func completeMFA(challengeID: String, with factor: SecondFactor) async throws -> AuthSession

    // Passkeys (`.passkeys`): the server halves of the WebAuthn ceremonies; the app runs the
    // platform's half (`navigator.credentials`, Apple's ASAuthorization) between start and finish.
    // `origin` is the app's web origin (or `https://` and its associated domain): it names the
    // relying party. A passkey sign-in is both factors: it never answers `.secondStep`.
    /// Options to sign `email` in with one of its passkeys.
    func passkeySignInStart(email: String, origin: String) async throws -> PasskeyStart
    /// Checks the platform's answer (`AuthenticationResponseJSON`) and signs in.
    func passkeySignInFinish(transactionID: String, credentialJSON: String) async throws -> AuthSession
    /// Options to add a passkey to the signed-in account.
    func passkeyRegistrationStart(origin: String, session: AuthSession) async throws -> PasskeyStart
    /// Checks the platform's answer (`RegistrationResponseJSON`) and keeps the passkey.
    func passkeyRegistrationFinish(transactionID: String, credentialJSON: String, session: AuthSession) async throws

    // The account's own sessions (`.sessionList`).
    func sessions(session: AuthSession) async throws -> [SessionInfo]
    /// Ends one of the account's sessions by its `SessionInfo.id`.
    func signOut(sessionID: String, session: AuthSession) async throws
    /// Ends every session of the account, or every one but `session` (Rownd's `signOut(scope:)`).
    func signOutEverywhere(keepingCurrent: Bool, session: AuthSession) async throws

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
    /// A refreshable session for an account Gatehouse signed in itself — its hosted sign-in page
    /// handing the session to an app (`insforge_code` exchange). Backends that cannot mint one
    /// refuse with `.notSupported(.userAdministration)`.
    func openSession(for id: UserID) async throws -> AuthSession
    /// Records a link to a provider identity (seeding and support; sign-in with OAuth is elsewhere).
    func linkExternalAuth(userID: UserID, provider: String, providerID: String) async throws -> ExternalAuth
    /// A user's linked provider identities, read with admin rights.
    func externalAuths(of userID: UserID) async throws -> [ExternalAuth]
    /// One linked identity by its id, whoever it belongs to; nil when there is none.
    func externalAuth(id: String) async throws -> ExternalAuth?
    /// Removes a user's link to `provider`, with admin rights.
    func unlinkExternalAuth(of userID: UserID, provider: String) async throws
    /// Deletes these accounts and ends their sessions; returns how many existed.
    func deleteUsers(_ ids: [UserID]) async throws -> Int
    /// Whether the account has TOTP on (`.totp`).
    func totpStatus(of id: UserID) async throws -> TOTPStatus
    /// Turns the account's TOTP off and drops its recovery codes (support, after identity checks).
    func resetTOTP(of id: UserID) async throws
    /// The linked provider identities of each of these users (a page of the console's list), keyed
    /// by user. The default asks for each user concurrently.
    func externalAuths(of userIDs: [UserID]) async throws -> [UserID: [ExternalAuth]]
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
