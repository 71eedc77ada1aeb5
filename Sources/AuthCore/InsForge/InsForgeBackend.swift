import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real InsForge (or Gatehouse's own InsForge-compatible API) behind `AuthClient`, over HTTP.
///
/// Calls as a user carry the user's access token; signed-out calls carry the app's anon key, as
/// InsForge's SDKs do. Sessions use `client_type=mobile`: the refresh token travels in the body and
/// rotates on every refresh. Administration (listing and deleting users) takes InsForge's admin
/// key; what InsForge's API lacks — impersonation, creating or editing users from outside,
/// unlinking providers — is `.notSupported`.
public final class InsForgeBackend: AuthAPI {
    public struct Configuration: Sendable {
        public var baseURL: URL
        /// Sent as `Bearer` on signed-out calls.
        public var anonKey: String
        /// InsForge's admin API key; without it admin calls report `.notSupported`.
        public var adminKey: String?
        /// How the server verifies new addresses (InsForge's API does not say).
        public var verificationMode: VerificationMode

        public init(baseURL: URL, anonKey: String = "anon", adminKey: String? = nil, verificationMode: VerificationMode = .code) {
            self.baseURL = baseURL
            self.anonKey = anonKey
            self.adminKey = adminKey
            self.verificationMode = verificationMode
        }
    }

    public let configuration: Configuration
    let http: InsForgeHTTP
    let logger: Logger

    public init(
        configuration: Configuration, session: URLSession = URLSession(configuration: .ephemeral),
        logger: Logger = Logger(label: "gatehouse.insforge")
    ) {
        self.configuration = configuration
        self.logger = logger
        http = InsForgeHTTP(baseURL: configuration.baseURL, anonKey: configuration.anonKey, session: session, logger: logger)
    }

    public var capabilities: Set<Capability> {
        var capabilities: Set<Capability> = [.profile, .sessionRefresh, .authMethods, .emailOTP]
        capabilities.insert(configuration.verificationMode == .link ? .emailLinkVerification : .emailCodeVerification)
        if configuration.adminKey != nil { capabilities.insert(.userAdministration) }
        return capabilities
    }

    public var verificationMode: VerificationMode { configuration.verificationMode }
    public var admin: any AuthAdminAPI { InsForgeAdmin(backend: self) }

    private static let mobile = [URLQueryItem(name: "client_type", value: "mobile")]

    public func signUp(_ request: SignUpRequest) async throws -> SignUpOutcome {
        var body: [String: JSONValue] = ["email": .string(request.email), "password": .string(request.password)]
        if let name = request.name, !name.isEmpty { body["name"] = .string(name) }
        let reply = try await http.json(InsForgeAuthReply.self, "POST", "api/auth/users", query: Self.mobile, body: body)
        let session = session(from: reply)
        // InsForge sends no user while the address waits for verification.
        let user =
            reply.user?.user
            ?? User(
                id: UserID(""), email: request.email, emailVerified: false, profile: Profile(), createdAt: Date(),
                updatedAt: Date())
        return SignUpOutcome(user: user, session: session, requireEmailVerification: reply.requireEmailVerification == true)
    }

    public func verifyEmail(email: String, code: String) async throws -> VerificationOutcome {
        let reply = try await http.json(
            InsForgeAuthReply.self, "POST", "api/auth/email/verify", query: Self.mobile,
            body: ["email": .string(email), "otp": .string(code)])
        return VerificationOutcome(user: reply.user?.user, session: session(from: reply))
    }

    /// InsForge confirms a mailed link's token through the same call as a code.
    public func verifyEmailLink(token: String) async throws -> VerificationOutcome {
        try await verifyEmail(email: "", code: token)
    }

    public func resendVerificationEmail(email: String) async throws {
        try await http.send("POST", "api/auth/email/send-verification", body: ["email": .string(email)])
    }

    public func signIn(email: String, password: String) async throws -> SignInResult {
        do {
            let reply = try await http.json(
                InsForgeAuthReply.self, "POST", "api/auth/sessions", query: Self.mobile,
                body: ["email": .string(email), "password": .string(password)])
            guard let session = session(from: reply) else { throw AuthError.invalidCredentials }
            return .signedIn(session)
        } catch AuthError.sessionExpired {
            throw AuthError.invalidCredentials
        } catch AuthError.emailNotVerified {
            throw AuthError.emailNotVerified(email: email)
        }
    }

    /// InsForge mails a 6-digit code (`POST /api/auth/email/send-otp`) and names the request by its
    /// address alone, so the address is the id to sign in with. Whether an unknown address may sign
    /// up is the server's setting, not the caller's.
    public func requestEmailOTP(email: String, allowSignUp: Bool) async throws -> String {
        try await http.send("POST", "api/auth/email/send-otp", body: ["email": .string(email)])
        return email
    }

    /// `POST /api/auth/sessions` with `method: "otp"`; `otpID` is the address `requestEmailOTP` returned.
    public func signIn(otpID: String, code: String) async throws -> SignInResult {
        let reply = try await http.json(
            InsForgeAuthReply.self, "POST", "api/auth/sessions", query: Self.mobile,
            body: ["method": "otp", "email": .string(otpID), "otp": .string(code)])
        guard let session = session(from: reply) else { throw AuthError.invalidCode }
        return .signedIn(session)
    }

    public func signOut(_ session: AuthSession) async throws {
        try await http.send("POST", "api/auth/logout", bearer: session.accessToken)
    }

    public func currentUser(_ session: AuthSession) async throws -> User {
        let reply = try await http.json(InsForgeAuthReply.self, "GET", "api/auth/sessions/current", bearer: session.accessToken)
        guard let user = reply.user?.user else { throw AuthError.sessionExpired }
        return user
    }

    public func setProfile(_ patch: [String: JSONValue], session: AuthSession) async throws -> User {
        try await http.send("PATCH", "api/auth/profiles/current", bearer: session.accessToken, body: ["profile": .object(patch)])
        return try await currentUser(session)
    }

    public func refresh(_ session: AuthSession) async throws -> AuthSession {
        guard session.refreshable, let refreshToken = session.refreshToken else { throw AuthError.sessionNotRefreshable }
        let reply = try await http.json(
            InsForgeAuthReply.self, "POST", "api/auth/refresh", query: Self.mobile,
            body: ["refresh_token": .string(refreshToken)])
        guard var renewed = self.session(from: reply) else { throw AuthError.sessionExpired }
        // InsForge's SDK keeps the old refresh token when none comes back.
        if renewed.refreshToken == nil { renewed.refreshToken = refreshToken }
        return renewed
    }

    public func authMethods() async throws -> AuthMethods {
        AuthMethods(
            password: true, emailCode: verificationMode == .code, emailLink: verificationMode == .link, oauth2Providers: [])
    }

    /// The providers InsForge reports on the user (names only: it keeps no link ids to show).
    public func externalAuths(userID: UserID, session: AuthSession) async throws -> [ExternalAuth] {
        let reply = try await http.json(InsForgeAuthReply.self, "GET", "api/auth/sessions/current", bearer: session.accessToken)
        return (reply.user?.providers ?? []).map {
            ExternalAuth(id: $0, userID: userID, provider: $0, providerID: "", createdAt: reply.user?.createdAt ?? Date())
        }
    }

    public func unlinkExternalAuth(userID: UserID, provider: String, session: AuthSession) async throws {
        throw AuthError.notSupported(.externalAuths)
    }

    /// A session from an auth reply; nil when it carries no access token (verification pending).
    func session(from reply: InsForgeAuthReply) -> AuthSession? {
        guard let access = reply.accessToken, let user = reply.user?.user else { return nil }
        return AuthSession(
            accessToken: access, refreshToken: reply.refreshToken, expiresAt: Self.expiry(of: access),
            refreshable: reply.refreshToken != nil, user: user)
    }

    /// The `exp` of a JWT access token (InsForge's are JWTs), nil for an opaque one.
    static func expiry(of jwt: String) -> Date? {
        PocketBaseToken.decode(jwt)?.expiresAt
    }
}
