import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Descope project (or Gatehouse's own Descope-compatible API) behind `AuthClient`, over
/// Descope's auth API (`/v1/auth`) as DescopeKit calls it.
///
/// The session's access token is Descope's session JWT and its refresh token the refresh JWT,
/// which every call made for the person carries. Accounts are usable at once (Descope's password
/// `signup` answers with JWTs); an address is verified by a mailed one-time code
/// (`otp/signin` → `otp/verify`), which is also what `verifyEmail` does. Only the auth API is used:
/// what needs Descope's management key — editing the profile, administration, impersonation,
/// turning an authenticator app off — is `.notSupported`.
public final class DescopeBackend: AuthAPI {
    public struct Configuration: Sendable {
        public var baseURL: URL
        /// The project every call names (`Authorization: Bearer <projectId>`).
        public var projectID: String
        /// Where a magic link sends the person (`redirectUrl`); nil leaves it to the project.
        public var magicLinkRedirectURL: String?

        public init(baseURL: URL, projectID: String, magicLinkRedirectURL: String? = nil) {
            self.baseURL = baseURL
            self.projectID = projectID
            self.magicLinkRedirectURL = magicLinkRedirectURL
        }
    }

    public let configuration: Configuration
    let http: DescopeHTTP

    public init(
        configuration: Configuration, session: URLSession = URLSession(configuration: .ephemeral),
        logger: Logger = Logger(label: "gatehouse.descope")
    ) {
        self.configuration = configuration
        http = DescopeHTTP(
            transport: BackendHTTP(baseURL: configuration.baseURL, session: session, logger: logger, name: "Descope"),
            projectID: configuration.projectID)
    }

    public var capabilities: Set<Capability> {
        [.emailCodeVerification, .sessionRefresh, .authMethods, .emailOTP, .magicLink, .totp, .mfa, .passwordChange, .passkeys]
    }

    /// Descope signs a new account in at once; its address is verified by a code later.
    public var verificationMode: VerificationMode { .none }
    public var admin: any AuthAdminAPI { NoAdministration() }

    public func signUp(_ request: SignUpRequest) async throws -> SignUpOutcome {
        var body: [String: JSONValue] = ["loginId": .string(request.email), "password": .string(request.password)]
        if let name = request.name, !name.isEmpty { body["user"] = .object(["name": .string(name)]) }
        let session = try session(
            from: try await http.json(DescopeJWTResponse.self, "POST", "auth/password/signup", body: body))
        return SignUpOutcome(user: session.user, session: session, requireEmailVerification: false)
    }

    /// A code `resendVerificationEmail` mailed: Descope marks the address verified when it signs in.
    public func verifyEmail(email: String, code: String) async throws -> VerificationOutcome {
        let signIn = try await signIn(otpID: email, code: code)
        return VerificationOutcome(user: signIn.session?.user, signIn: signIn)
    }

    /// A magic link's token: it signs in and marks the address verified.
    public func verifyEmailLink(token: String) async throws -> VerificationOutcome {
        let signIn = try await signIn(magicLinkToken: token, browserBinding: nil)
        return VerificationOutcome(user: signIn.session?.user, signIn: signIn)
    }

    /// Mails a sign-in code (`otp/signin/email`): entering it verifies the address.
    public func resendVerificationEmail(email: String) async throws {
        _ = try await requestEmailOTP(email: email, allowSignUp: false)
    }

    public func signIn(email: String, password: String) async throws -> SignInResult {
        try await signingIn {
            try await http.json(
                DescopeJWTResponse.self, "POST", "auth/password/signin",
                body: ["loginId": .string(email), "password": .string(password)], secondStepFor: email)
        }
    }

    /// Ends this refresh JWT's session (`auth/logout`).
    public func signOut(_ session: AuthSession) async throws {
        try await http.send("POST", "auth/logout", refreshJwt: try refreshJwt(of: session))
    }

    public func currentUser(_ session: AuthSession) async throws -> User {
        try await me(session).user
    }

    /// Descope's auth API changes no profile field: its `update` calls need the management key.
    public func setProfile(_ patch: [String: JSONValue], session: AuthSession) async throws -> User {
        throw AuthError.notSupported(.profile)
    }

    /// A new session JWT (`auth/refresh`); the refresh JWT stays when none comes back.
    public func refresh(_ session: AuthSession) async throws -> AuthSession {
        guard session.refreshable else { throw AuthError.sessionNotRefreshable }
        let reply = try await http.json(
            DescopeJWTResponse.self, "POST", "auth/refresh", refreshJwt: try refreshJwt(of: session))
        var renewed = session
        guard let sessionJwt = reply.sessionJwt, !sessionJwt.isEmpty else { throw AuthError.sessionExpired }
        renewed.accessToken = sessionJwt
        renewed.expiresAt = PocketBaseToken.decode(sessionJwt)?.expiresAt
        if let refresh = reply.refreshJwt, !refresh.isEmpty { renewed.refreshToken = refresh }
        if let user = reply.user { renewed.user = user.user }
        return renewed
    }

    /// Descope's API does not list a project's methods: these are the ones this backend calls.
    public func authMethods() async throws -> AuthMethods {
        AuthMethods(password: true, emailCode: true, emailLink: true, oauth2Providers: [])
    }

    /// The providers `me` reports (names only: Descope's auth API shows no link ids).
    public func externalAuths(userID: UserID, session: AuthSession) async throws -> [ExternalAuth] {
        let me = try await me(session)
        return me.providers.map {
            ExternalAuth(id: $0, userID: userID, provider: $0, providerID: "", createdAt: me.user.createdAt)
        }
    }

    public func unlinkExternalAuth(userID: UserID, provider: String, session: AuthSession) async throws {
        throw AuthError.notSupported(.externalAuths)
    }

    /// Mails a 6-digit code (`otp/signin/email`, or `signup-in` where a missing account may be
    /// made). Descope names the request by the address alone: the address is the id.
    public func requestEmailOTP(email: String, allowSignUp: Bool) async throws -> String {
        let route = allowSignUp ? "auth/otp/signup-in/email" : "auth/otp/signin/email"
        try await http.send("POST", route, body: ["loginId": .string(email)])
        return email
    }

    /// `otp/verify/email {loginId, code}`; `otpID` is the address `requestEmailOTP` returned.
    public func signIn(otpID: String, code: String) async throws -> SignInResult {
        try await signingIn {
            try await http.json(
                DescopeJWTResponse.self, "POST", "auth/otp/verify/email",
                body: ["loginId": .string(otpID), "code": .string(code)], secondStepFor: otpID)
        }
    }

    /// Mails a sign-in link. Descope binds a link to no browser: `browserBinding` is not sent, and
    /// the link's token signs in wherever it is opened.
    public func requestMagicLink(email: String, allowSignUp: Bool, browserBinding: String) async throws {
        var body: [String: JSONValue] = ["loginId": .string(email)]
        if let redirect = configuration.magicLinkRedirectURL { body["redirectUrl"] = .string(redirect) }
        let route = allowSignUp ? "auth/magiclink/signup-in/email" : "auth/magiclink/signin/email"
        try await http.send("POST", route, body: body)
    }

    /// `magiclink/verify {token}`.
    public func signIn(magicLinkToken: String, browserBinding: String?) async throws -> SignInResult {
        .signedIn(
            try session(
                from: try await http.json(
                    DescopeJWTResponse.self, "POST", "auth/magiclink/verify", body: ["token": .string(magicLinkToken)])))
    }

    /// The session a sign-in call answered, or the second step it asked for (`SecondStepOwed`).
    func signingIn(_ call: () async throws -> DescopeJWTResponse) async throws -> SignInResult {
        do {
            return .signedIn(try session(from: try await call()))
        } catch let owed as SecondStepOwed {
            return .secondStep(owed.challenge)
        }
    }

    /// `auth/me` with the session's refresh JWT.
    func me(_ session: AuthSession) async throws -> DescopeUserBody {
        try await http.json(DescopeUserBody.self, "GET", "auth/me", refreshJwt: try refreshJwt(of: session))
    }

    /// The refresh JWT every call made for the person carries.
    func refreshJwt(of session: AuthSession) throws -> String {
        guard let refresh = session.refreshToken, !refresh.isEmpty else { throw AuthError.sessionExpired }
        return refresh
    }

    /// A session from a `JWTResponse`: the session JWT as the access token (its `exp` the expiry),
    /// the refresh JWT to renew it and to call as the person.
    func session(from reply: DescopeJWTResponse) throws -> AuthSession {
        guard let access = reply.sessionJwt, !access.isEmpty, let refresh = reply.refreshJwt, !refresh.isEmpty,
            let user = reply.user
        else {
            throw AuthError.server(
                status: 502, code: "bad_response", message: "Descope answered without both JWTs (tokens kept in cookies?).")
        }
        return AuthSession(
            accessToken: access, refreshToken: refresh, expiresAt: PocketBaseToken.decode(access)?.expiresAt,
            refreshable: true, user: user.user)
    }
}
