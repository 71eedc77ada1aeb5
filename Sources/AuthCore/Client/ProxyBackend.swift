import Foundation
import Logging

/// The hosted pages' `AuthBackend` over any `AuthAPI`: how Gatehouse proxies a real backend
/// (`gatehouse serve --backend pocketbase`). Sign-in returns the backend's session as the
/// browser session's credential; account reads and profile changes are made as that user.
/// Calls without a credential (a session started by a code verification) use the admin API.
public struct ProxyBackend: AuthBackend {
    public let api: any AuthAPI
    /// Renew a browser session's backend token when it has less than this left (PocketBase's
    /// tokens last 5 days by default; Gatehouse's browser sessions 7).
    public let renewalMargin: TimeInterval
    private let clock: @Sendable () -> Date
    private let logger: Logger

    public init(
        api: any AuthAPI, renewalMargin: TimeInterval = 24 * 3600, clock: @escaping @Sendable () -> Date = Date.init,
        logger: Logger = Logger(label: "gatehouse.proxy")
    ) {
        self.api = api
        self.renewalMargin = renewalMargin
        self.clock = clock
        self.logger = logger
    }

    public var capabilities: Set<Capability> { api.capabilities }

    /// Code verification where the backend offers it, else its mailed link.
    public var verificationMode: VerificationMode {
        api.capabilities.contains(.emailCodeVerification) ? .code : .link
    }

    public func signUp(_ request: SignUpRequest) async throws -> SignUpResult {
        let outcome = try await api.signUp(request)
        return SignUpResult(user: outcome.user, requireEmailVerification: outcome.requireEmailVerification)
    }

    public func verifyEmail(email: String, code: String) async throws -> User {
        guard api.capabilities.contains(.emailCodeVerification) else { throw AuthError.notSupported(.emailCodeVerification) }
        return try await verifiedUser(try await api.verifyEmail(email: email, code: code))
    }

    public func verifyEmailLink(token: String) async throws -> User {
        try await verifiedUser(try await api.verifyEmailLink(token: token))
    }

    public func resendVerification(email: String) async throws {
        try await api.resendVerificationEmail(email: email)
    }

    public func signIn(email: String, password: String) async throws -> User {
        try await api.signIn(email: email, password: password).user
    }

    public func signInForSession(email: String, password: String) async throws -> BackendSignIn {
        let session = try await api.signIn(email: email, password: password)
        return BackendSignIn(user: session.user, credential: try Self.credential(for: session))
    }

    public func user(_ id: UserID) async throws -> User {
        guard api.capabilities.contains(.userAdministration) else { throw AuthError.notSupported(.userAdministration) }
        return try await api.admin.user(id)
    }

    public func user(_ id: UserID, credential: BackendCredential?) async throws -> User {
        guard let session = credential.flatMap(Self.session(from:)), session.user.id == id else { return try await user(id) }
        return try await api.currentUser(session)
    }

    public func setProfile(userID: UserID, patch: [String: JSONValue]) async throws -> User {
        guard api.capabilities.contains(.userAdministration) else { throw AuthError.notSupported(.profile) }
        return try await api.admin.updateUser(userID, UserUpdate(profilePatch: patch))
    }

    public func setProfile(userID: UserID, patch: [String: JSONValue], credential: BackendCredential?) async throws -> User {
        guard let session = credential.flatMap(Self.session(from:)), session.user.id == userID else {
            return try await setProfile(userID: userID, patch: patch)
        }
        return try await api.setProfile(patch, session: session)
    }

    /// Refreshes the backend session behind `credential` when it expires within `renewalMargin`.
    /// Two requests of one browser may both renew: fine for PocketBase's stateless tokens (both
    /// stay valid until they expire).
    public func renewedCredential(_ credential: BackendCredential) async throws -> BackendCredential? {
        guard let session = Self.session(from: credential), session.refreshable,
            session.expires(within: renewalMargin, of: clock()), !session.expires(within: 0, of: clock())
        else { return nil }
        let renewed = try await api.refresh(session)
        logger.debug("backend session renewed", metadata: ["user": "\(renewed.user.id)"])
        return try Self.credential(for: renewed)
    }

    private func verifiedUser(_ outcome: VerificationOutcome) async throws -> User {
        guard let user = outcome.user ?? outcome.session?.user else {
            throw AuthError.server(status: 502, code: "no_user", message: "The backend verified the email but did not say whose.")
        }
        return user
    }

    /// The backend's session itself, as JSON: later calls act as its user with it.
    public func credential(for session: AuthSession) throws -> BackendCredential? {
        try Self.credential(for: session)
    }

    /// PocketBase's impersonation token for the user, made with the superuser's rights.
    public func impersonationCredential(of userID: UserID, duration: TimeInterval, actor: String) async throws
        -> BackendCredential?
    {
        guard api.capabilities.contains(.impersonation) else { throw AuthError.notSupported(.impersonation) }
        return try Self.credential(for: try await api.admin.impersonate(userID, duration: duration, actor: actor))
    }

    static func credential(for session: AuthSession) throws -> BackendCredential {
        BackendCredential(String(decoding: try JSONEncoder().encode(session), as: UTF8.self))
    }

    static func session(from credential: BackendCredential) -> AuthSession? {
        try? JSONDecoder().decode(AuthSession.self, from: Data(credential.value.utf8))
    }
}
