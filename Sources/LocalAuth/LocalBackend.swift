import AuthCore
import Foundation
import Logging
import Secrets
import ServerSeam
import Store

/// The embedded backend on the seam: `LocalAccounts`' rules, with sessions of opaque tokens kept
/// hashed in `sessions`. The account pages, the console, the JSON APIs and `AuthClient` all use it.
///
/// Access tokens live one hour; refresh tokens rotate on every use and a session's refresh
/// tokens form one family that lives 30 days from sign-in. Presenting a rotated refresh token
/// again revokes the family. Impersonation sessions have no refresh token. API tokens are hashed
/// under their own `SessionKind`, so one can never be replayed as a browser cookie (nor the reverse).
public struct LocalBackend: AuthAPI, SessionDescribing, UnverifiedSessions, PasswordlessSignUps {
    public let accounts: LocalAccounts
    public let accessTokenLifetime: TimeInterval
    public let refreshFamilyLifetime: TimeInterval
    /// Who the sessions this value opens are for (`opening(for:)`); nil: not said.
    public private(set) var client: SessionClient?
    /// Whether this value signs in accounts that have not verified their address
    /// (`admittingUnverifiedAccounts()`); the server's `--verification` rule otherwise.
    public private(set) var admitsUnverified = false

    public init(
        accounts: LocalAccounts, accessTokenLifetime: TimeInterval = 3600,
        refreshFamilyLifetime: TimeInterval = 30 * 24 * 3600
    ) {
        self.accounts = accounts
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshFamilyLifetime = refreshFamilyLifetime
    }

    var database: AppDatabase { accounts.database }
    var clock: @Sendable () -> Date { accounts.clock }
    var logger: Logger { accounts.logger }

    public var capabilities: Set<Capability> { Self.capabilities }

    /// Built once: pages ask for capabilities on every request.
    private static let capabilities: Set<Capability> = [
        .emailCodeVerification, .emailLinkVerification, .profile, .externalAuths, .externalSignIn,
        .sessionRefresh, .authMethods, .impersonation, .userAdministration, .disableUsers, .sessionList, .totp, .mfa,
        .emailChange, .emailOTP, .magicLink, .passwordReset, .passwordChange, .userChanges,
        .passkeys
    ]

    public var verificationMode: VerificationMode { accounts.verificationMode }

    public func openingSessions(for client: SessionClient) -> any AuthAPI {
        var copy = self
        copy.client = client
        return copy
    }

    public func admittingUnverifiedAccounts() -> any AuthAPI {
        var copy = self
        copy.admitsUnverified = true
        return copy
    }

    public var admin: any AuthAdminAPI { LocalAdminAPI(api: self) }

    public func signUp(_ request: SignUpRequest) async throws -> SignUpOutcome {
        var outcome = try await accounts.signUp(request, mailsVerification: !admitsUnverified)
        if !outcome.requireEmailVerification { outcome.session = try await openSession(for: outcome.user) }
        return outcome
    }

    /// A passkey's account: as `signUp`, with no password and the id its user handle names.
    public func signUpWithoutPassword(id: UserID, email: String, name: String?) async throws -> SignUpOutcome {
        var outcome = try await accounts.signUpWithoutPassword(
            id: id, email: email, name: name, mailsVerification: !admitsUnverified)
        if !outcome.requireEmailVerification { outcome.session = try await openSession(for: outcome.user) }
        return outcome
    }

    /// A right code verifies the account and signs in, as InsForge's `POST /email/verify` does; on
    /// a server that verifies by link, `code` is the link's token (the seam's word for link-only
    /// backends). Either way the sign-in goes through the account's second step when it has one.
    public func verifyEmail(email: String, code: String) async throws -> VerificationOutcome {
        if verificationMode == .link {
            let user = try await accounts.verifyEmailLink(token: code)
            return VerificationOutcome(user: user, signIn: try await sessionOrChallenge(for: user, firstMethod: "email_link"))
        }
        let user = try await accounts.verifyEmail(email: email, code: code)
        return VerificationOutcome(user: user, signIn: try await sessionOrChallenge(for: user, firstMethod: "email_code"))
    }

    /// A link may be opened by a mail scanner, so it verifies without signing in.
    public func verifyEmailLink(token: String) async throws -> VerificationOutcome {
        VerificationOutcome(user: try await accounts.verifyEmailLink(token: token), session: nil)
    }

    public func resendVerificationEmail(email: String) async throws {
        try await accounts.resendVerification(email: email)
    }

    public func resendVerificationEmail(email: String, withLink: Bool) async throws {
        try await accounts.resendVerification(email: email, withLink: withLink)
    }

    public func signIn(email: String, password: String) async throws -> SignInResult {
        let user = try await accounts.signIn(email: email, password: password, admitUnverified: admitsUnverified)
        return try await sessionOrChallenge(for: user, firstMethod: "password")
    }

    public func signOut(_ session: AuthSession) async throws {
        try await database.revokeSession(tokenHash: accessHash(session.accessToken), at: clock())
    }

    public func currentUser(_ session: AuthSession) async throws -> User {
        try await user(for: session)
    }

    public func setProfile(_ patch: [String: JSONValue], session: AuthSession) async throws -> User {
        try await accounts.setProfile(userID: try await userID(for: session), patch: patch)
    }

    public func refresh(_ session: AuthSession) async throws -> AuthSession {
        guard session.refreshable, let refreshToken = session.refreshToken else { throw AuthError.sessionNotRefreshable }
        let now = clock()
        let access = SecureRandom.token()
        let refresh = SecureRandom.token()
        let expiresAt = now.addingTimeInterval(accessTokenLifetime)
        switch try await database.rotateRefreshToken(
            refreshHash(refreshToken), newTokenHash: accessHash(access), newRefreshTokenHash: refreshHash(refresh),
            accessExpiresAt: expiresAt, createdAfter: now.addingTimeInterval(-refreshFamilyLifetime), now: now)
        {
        case .rotated(let record):
            guard let user = try await database.user(id: record.userID), !user.disabled else {
                try await database.revokeSession(id: record.id, at: now)
                throw AuthError.sessionExpired
            }
            return AuthSession(accessToken: access, refreshToken: refresh, expiresAt: expiresAt, user: user.user)
        case .reused:
            logger.warning("rotated refresh token presented again; session revoked", metadata: ["user": "\(session.user.id)"])
            throw AuthError.sessionExpired
        case .refused:
            throw AuthError.sessionExpired
        }
    }

    public func authMethods() async throws -> AuthMethods {
        AuthMethods(
            password: true, emailCode: accounts.verificationMode == .code,
            emailLink: accounts.verificationMode == .link, oauth2Providers: [])
    }

    public func externalAuths(userID: UserID, session: AuthSession) async throws -> [ExternalAuth] {
        let links = try owner(
            of: await database.activeSessionExternalAuths(tokenHash: accessHash(session.accessToken), now: clock()))
        guard links.userID == userID else { throw Self.notTheOwner }
        return links.value
    }

    public func unlinkExternalAuth(userID: UserID, provider: String, session: AuthSession) async throws {
        try await requireOwner(userID, session)
        try await accounts.unlink(provider: provider, from: userID)
        logger.info("external auth unlinked", metadata: ["user": "\(userID)", "provider": "\(provider)"])
    }

    public func signIn(with identity: ExternalIdentity, allowCreate: Bool) async throws -> ExternalSignIn {
        let (user, outcome) = try await accounts.signIn(with: identity, allowCreate: allowCreate)
        return ExternalSignIn(result: try await sessionOrChallenge(for: user, firstMethod: "provider"), outcome: outcome)
    }

    public func link(_ identity: ExternalIdentity, session: AuthSession) async throws -> ExternalAuth {
        try await accounts.link(identity, to: try await userID(for: session))
    }

    // MARK: Sessions

    /// A new API session: a refreshable one for a sign-in, a non-refreshable one for impersonation.
    func openSession(for user: User, impersonator: String? = nil, lifetime: TimeInterval? = nil) async throws -> AuthSession {
        let now = clock()
        let access = SecureRandom.token()
        let refresh = impersonator == nil ? SecureRandom.token() : nil
        let expiresAt = now.addingTimeInterval(lifetime ?? accessTokenLifetime)
        let (userAgent, ip): (String?, String?) =
            switch client {
            case .browserSession: (NewSession.browserBackingUserAgent, nil)
            case .app(let userAgent, let ip): (userAgent.map { String($0.prefix(512)) }, ip)
            case nil: (nil, nil)
            }
        _ = try await database.createSession(
            NewSession(
                tokenHash: accessHash(access), refreshTokenHash: refresh.map(refreshHash), userID: user.id,
                userAgent: userAgent, ip: ip, createdAt: now, expiresAt: expiresAt, impersonator: impersonator))
        return AuthSession(
            accessToken: access, refreshToken: refresh, expiresAt: expiresAt,
            refreshable: refresh != nil, user: user)
    }

    /// The account behind a live access token; anything else is `.sessionExpired`.
    func user(for session: AuthSession) async throws -> User {
        try owner(of: await database.activeSessionUser(tokenHash: accessHash(session.accessToken), now: clock())).value.user
    }

    /// `user(for:)`'s check, for calls that need only who is calling: the account is not read.
    func userID(for session: AuthSession) async throws -> UserID {
        try owner(of: await database.activeSessionUserID(tokenHash: accessHash(session.accessToken), now: clock())).userID
    }

    /// What a read for a signed-in call found, when its session is live and its account enabled;
    /// `.sessionExpired` otherwise.
    func owner<Value>(of found: SessionOwned<Value>?) throws -> SessionOwned<Value> {
        guard let found, !found.disabled else { throw AuthError.sessionExpired }
        return found
    }

    /// The live session row behind an access token; anything else is `.sessionExpired`.
    func activeRecord(for session: AuthSession) async throws -> SessionRecord {
        guard let record = try await database.activeSession(tokenHash: accessHash(session.accessToken), now: clock())
        else { throw AuthError.sessionExpired }
        return record
    }

    private func requireOwner(_ userID: UserID, _ session: AuthSession) async throws {
        guard try await self.userID(for: session) == userID else { throw Self.notTheOwner }
    }

    private static let notTheOwner = AuthError.server(
        status: 403, code: "forbidden", message: "Only the account's owner can do this.")

    func accessHash(_ token: String) -> String { SessionKind.backend.tokenHash(token, with: accounts.keyedHash) }
    private func refreshHash(_ token: String) -> String { SessionKind.backend.refreshTokenHash(token, with: accounts.keyedHash) }
}
