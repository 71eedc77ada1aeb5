import Foundation
import Logging

/// What changed about the client's session; observers get it with the new session (nil once signed out).
public enum AuthEvent: String, Sendable, Hashable {
    case signedIn
    case signedOut
    case tokenRefreshed
    case userUpdated
    /// The backend refused the session (expired, revoked, or its refresh failed); it was dropped.
    case sessionExpired
}

/// The Swift SDK-style facade: one API over every backend, with the session kept in `storage`,
/// observers told about every change, and the access token refreshed shortly before it expires —
/// one refresh at a time, shared by every caller that needs it.
///
/// ```swift
/// let client = AuthClient(api: PocketBaseBackend(configuration: .init(baseURL: url)))
/// let signUp = try await client.signUp(email: "ada@example.com", password: "…", name: "Ada")
/// if signUp.needsEmailVerification { … }
/// try await client.signIn(email: "ada@example.com", password: "…")
/// let me = try await client.getCurrentUser()
/// ```
public actor AuthClient {
    public typealias Observer = @Sendable (AuthEvent, AuthSession?) -> Void

    public nonisolated let api: any AuthAPI
    private let storage: any SessionStorage
    /// Refresh when the access token has less than this left.
    private let refreshMargin: TimeInterval
    private let clock: @Sendable () -> Date
    private let logger: Logger

    private(set) var session: AuthSession?
    private var restored = false
    private var refreshTask: Task<AuthSession, any Error>?
    private var observers: [UUID: Observer] = [:]

    public init(
        api: any AuthAPI, storage: any SessionStorage = InMemorySessionStorage(), refreshMargin: TimeInterval = 60,
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "gatehouse.auth-client")
    ) {
        self.api = api
        self.storage = storage
        self.refreshMargin = refreshMargin
        self.clock = clock
        self.logger = logger
    }

    /// Administration through the backend's own admin credentials.
    public nonisolated var admin: any AuthAdminAPI { api.admin }
    public nonisolated var capabilities: Set<Capability> { api.capabilities }

    // MARK: Observers

    /// Calls `observer` after every session change until `removeObserver` with the returned id.
    @discardableResult
    public func addObserver(_ observer: @escaping Observer) -> UUID {
        let id = UUID()
        observers[id] = observer
        return id
    }

    public func removeObserver(_ id: UUID) {
        observers[id] = nil
    }

    // MARK: Account

    public func signUp(email: String, password: String, name: String? = nil) async throws -> SignUpResponse {
        let outcome = try await api.signUp(SignUpRequest(email: email, password: password, name: name))
        if let session = outcome.session { try await replace(with: session, event: .signedIn) }
        return SignUpResponse(
            user: outcome.user, accessToken: outcome.session?.accessToken,
            refreshToken: outcome.session?.refreshToken,
            requireEmailVerification: outcome.requireEmailVerification)
    }

    /// Confirms the address with what was mailed (see `AuthAPI.verifyEmail`). Signs in when the
    /// backend returns a session.
    @discardableResult
    public func verifyEmail(email: String, code: String) async throws -> VerificationOutcome {
        let outcome = try await api.verifyEmail(email: email, code: code)
        if let session = outcome.session { try await replace(with: session, event: .signedIn) }
        return outcome
    }

    public func resendVerificationEmail(email: String) async throws {
        try await api.resendVerificationEmail(email: email)
    }

    /// Mails the signed-in account a fresh code or link (the only way SuperTokens' FDI mails one).
    public func resendVerificationEmail() async throws {
        let current = try await requireSession()
        try await authorized(current) { try await self.api.resendVerificationEmail(session: $0) }
    }

    /// Signs in with a password: kept and announced when signed in; a second step owed is
    /// finished with `completeMFA`.
    @discardableResult
    public func signIn(email: String, password: String) async throws -> SignInResult {
        try await keep(try await api.signIn(email: email, password: password))
    }

    /// Keeps the session a sign-in opened (announced as `.signedIn`) and passes the result on.
    func keep(_ result: SignInResult) async throws -> SignInResult {
        if let session = result.session {
            try await replace(with: session, event: .signedIn)
            logger.info("signed in", metadata: ["user": "\(session.user.id)"])
        }
        return result
    }

    /// Ends the session on the backend (best effort) and forgets it here.
    public func signOut() async throws {
        try await restoreIfNeeded()
        guard let current = session else { return }
        do {
            try await api.signOut(current)
        } catch {
            logger.warning("backend sign-out failed; forgetting the session anyway", metadata: ["error": "\(error)"])
        }
        try await replace(with: nil, event: .signedOut)
    }

    /// The signed-in user fresh from the backend, or nil when signed out.
    public func getCurrentUser() async throws -> User? {
        guard let current = try await validSession() else { return nil }
        let user = try await authorized(current) { try await self.api.currentUser($0) }
        try await updateUser(user)
        return user
    }

    /// The current session, refreshed first when its access token is about to expire.
    public func getSession() async throws -> AuthSession? {
        try await validSession()
    }

    /// Shallow-merges `patch` into the profile (`.null` removes a key).
    @discardableResult
    public func setProfile(_ patch: [String: JSONValue]) async throws -> User {
        let current = try await requireSession()
        let user = try await authorized(current) { try await self.api.setProfile(patch, session: $0) }
        try await updateUser(user)
        return user
    }

    /// Renews the session now, whatever its expiry. Concurrent callers share one refresh.
    @discardableResult
    public func refreshSession() async throws -> AuthSession {
        try await refreshShared(try await requireSession())
    }

    public func listAuthMethods() async throws -> AuthMethods {
        try await api.authMethods()
    }

    public func listExternalAuths(userId: UserID) async throws -> [ExternalAuth] {
        let current = try await requireSession()
        return try await authorized(current) { try await self.api.externalAuths(userID: userId, session: $0) }
    }

    public func unlinkExternalAuth(userId: UserID, provider: String) async throws {
        let current = try await requireSession()
        try await authorized(current) { try await self.api.unlinkExternalAuth(userID: userId, provider: provider, session: $0) }
    }

    /// A separate client signed in as `userId` for at most one hour, through the backend's admin
    /// credentials. Its session cannot be refreshed; this client's own session is untouched.
    public func impersonate(userId: UserID, duration: TimeInterval = Impersonation.maximumDuration) async throws -> AuthClient {
        let session = try await api.admin.impersonate(userId, duration: Impersonation.clamp(duration))
        logger.notice("impersonation started", metadata: ["subject": "\(userId)"])
        return AuthClient(
            api: api, storage: InMemorySessionStorage(session), refreshMargin: refreshMargin,
            clock: clock, logger: logger)
    }

    // MARK: Session keeping (internal: AuthClient+Lifecycle.swift builds on it)

    private func restoreIfNeeded() async throws {
        guard !restored else { return }
        restored = true
        session = try await storage.load()
    }

    func requireSession() async throws -> AuthSession {
        guard let current = try await validSession() else { throw AuthError.sessionExpired }
        return current
    }

    /// The session, refreshed when it expires within the margin. An expired session that cannot
    /// be refreshed is dropped.
    private func validSession() async throws -> AuthSession? {
        try await restoreIfNeeded()
        guard let current = session else { return nil }
        let now = clock()
        guard current.expires(within: refreshMargin, of: now) else { return current }
        if current.refreshable {
            return try await refreshShared(current)
        }
        if current.expires(within: 0, of: now) {
            try await replace(with: nil, event: .sessionExpired)
            return nil
        }
        return current
    }

    /// One refresh in flight: later callers await the same task.
    private func refreshShared(_ current: AuthSession) async throws -> AuthSession {
        if let running = refreshTask { return try await running.value }
        guard current.refreshable else { throw AuthError.sessionNotRefreshable }
        let api = self.api
        let task = Task { try await api.refresh(current) }
        refreshTask = task
        defer { refreshTask = nil }
        do {
            let renewed = try await task.value
            try await replace(with: renewed, event: .tokenRefreshed)
            logger.debug("session refreshed", metadata: ["user": "\(renewed.user.id)"])
            return renewed
        } catch AuthError.sessionExpired {
            try await replace(with: nil, event: .sessionExpired)
            throw AuthError.sessionExpired
        }
    }

    /// Runs `call`; a refused token drops the session and reports `.sessionExpired`.
    func authorized<T: Sendable>(_ current: AuthSession, _ call: (AuthSession) async throws -> T) async throws -> T {
        do {
            return try await call(current)
        } catch AuthError.sessionExpired {
            if session == current { try await replace(with: nil, event: .sessionExpired) }
            throw AuthError.sessionExpired
        }
    }

    func updateUser(_ user: User) async throws {
        guard var current = session, current.user.id == user.id, current.user != user else { return }
        current.user = user
        try await replace(with: current, event: .userUpdated)
    }

    func replace(with new: AuthSession?, event: AuthEvent) async throws {
        restored = true
        session = new
        try await storage.save(new)
        for observer in observers.values { observer(event, new) }
    }
}
