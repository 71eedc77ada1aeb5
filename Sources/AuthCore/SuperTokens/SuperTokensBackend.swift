import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A SuperTokens app behind `AuthClient`, over its Frontend Driver Interface (FDI) as a
/// SuperTokens frontend SDK calls it in header mode — the Swift twin of what supertokens-ios and
/// the Rownd SDK do, against Gatehouse's own FDI or an app backend on a SuperTokens SDK.
///
/// The session's access token is SuperTokens' access JWT and its refresh token the rotating
/// refresh token (each `session/refresh` answers a new pair; the old refresh token is spent).
/// Accounts are usable at once (emailpassword `signup` answers with a session); an address is
/// proven by the link the FDI mails to the signed-in person. The account and its profile are the
/// Rownd plugin's (`plugin/rownd/user`, which Gatehouse serves and `supertokens-rownd` adds to an
/// app backend): SuperTokens' own FDI has no route that shows an account. Administration needs the
/// core's API key, which a frontend never holds: refused.
public final class SuperTokensBackend: AuthAPI {
    public struct Configuration: Sendable {
        /// The API's address (SuperTokens' `apiDomain`): Gatehouse's own when it answers the FDI.
        public var apiDomain: URL
        /// Where the FDI answers under `apiDomain` (SuperTokens' `apiBasePath`, `/auth` by default).
        public var apiBasePath: String

        public init(apiDomain: URL, apiBasePath: String = "/auth") {
            self.apiDomain = apiDomain
            self.apiBasePath = apiBasePath
        }
    }

    public let configuration: Configuration
    let fdi: SuperTokensFDIHTTP

    public init(
        configuration: Configuration, session: URLSession = URLSession(configuration: .ephemeral),
        logger: Logger = Logger(label: "gatehouse.supertokens")
    ) {
        self.configuration = configuration
        fdi = SuperTokensFDIHTTP(
            transport: BackendHTTP(baseURL: configuration.apiDomain, session: session, logger: logger, name: "SuperTokens"),
            basePath: configuration.apiBasePath.split(separator: "/").joined(separator: "/"))
    }

    public var capabilities: Set<Capability> {
        [.emailLinkVerification, .profile, .sessionRefresh, .authMethods, .emailOTP, .totp, .mfa]
    }

    /// SuperTokens signs a new account in at once; its address is proven by a mailed link later.
    public var verificationMode: VerificationMode { .none }
    public var admin: any AuthAdminAPI { NoAdministration() }

    /// `signup` with the email and password form fields; a name is then written to the profile.
    public func signUp(_ request: SignUpRequest) async throws -> SignUpOutcome {
        let reply = try await fdi.call(
            "POST", "signup", rid: "emailpassword",
            body: ["formFields": Self.formFields(["email": request.email, "password": request.password])]
        ).ok()
        var session = try session(from: reply, user: try SuperTokensUserBody.user(reply.body["user"]))
        if let name = request.name, !name.isEmpty {
            session.user = try await setProfile(["name": .string(name)], session: session)
        }
        return SignUpOutcome(user: session.user, session: session, requireEmailVerification: false)
    }

    /// The FDI spends a verification link's token only: `code` is that token.
    public func verifyEmail(email: String, code: String) async throws -> VerificationOutcome {
        try await verifyEmailLink(token: code)
    }

    /// `user/email/verify {method: "token", token}`. The FDI says only that it worked: no account
    /// and no session come back (the address's first proof may end the account's earlier sessions).
    public func verifyEmailLink(token: String) async throws -> VerificationOutcome {
        try await fdi.call(
            "POST", "user/email/verify", rid: "emailverification", body: ["method": "token", "token": .string(token)]
        ).ok()
        return VerificationOutcome(user: nil, signIn: nil)
    }

    /// The FDI mails a verification link only to the signed-in person
    /// (`resendVerificationEmail(session:)`): without a session there is no one to mail.
    public func resendVerificationEmail(email: String) async throws {
        throw AuthError.sessionExpired
    }

    /// `user/email/verify/token` for the session's account; an address already proven is no error.
    public func resendVerificationEmail(session: AuthSession) async throws {
        let reply = try await fdi.call(
            "POST", "user/email/verify/token", rid: "emailverification", bearer: session.accessToken)
        if reply.status != "EMAIL_ALREADY_VERIFIED_ERROR" { try reply.ok() }
    }

    /// `signin`; an account that owes its second step answers `.secondStep` (see `signedIn(_:)`).
    public func signIn(email: String, password: String) async throws -> SignInResult {
        try signedIn(
            try await fdi.call(
                "POST", "signin", rid: "emailpassword",
                body: ["formFields": Self.formFields(["email": email, "password": password])]))
    }

    /// `signout` ends the session; an expired access token is refreshed once first, as the SDKs do.
    public func signOut(_ session: AuthSession) async throws {
        do {
            try await fdi.call("POST", "signout", rid: "session", bearer: session.accessToken)
        } catch AuthError.sessionExpired where session.refreshToken != nil {
            try await fdi.call("POST", "signout", rid: "session", bearer: try await refresh(session).accessToken)
        }
    }

    public func currentUser(_ session: AuthSession) async throws -> User {
        try await account(of: session.accessToken)
    }

    /// The Rownd plugin's account for `accessToken` (`GET plugin/rownd/user`); a 404 (no account)
    /// ends the session, as the Rownd SDK takes it.
    func account(of accessToken: String) async throws -> User {
        do {
            return try SuperTokensUserBody.rowndUser(
                try await fdi.call("GET", "plugin/rownd/user", rid: "session", bearer: accessToken).body)
        } catch AuthError.server(status: 404, _, _) {
            throw AuthError.sessionExpired
        }
    }

    /// `PUT plugin/rownd/user {data}`: each field replaces, `null` removes one.
    public func setProfile(_ patch: [String: JSONValue], session: AuthSession) async throws -> User {
        try SuperTokensUserBody.rowndUser(
            try await fdi.call(
                "PUT", "plugin/rownd/user", rid: "session", bearer: session.accessToken, body: ["data": .object(patch)]
            ).body)
    }

    /// `session/refresh` with the refresh token: a new access token and a new refresh token.
    public func refresh(_ session: AuthSession) async throws -> AuthSession {
        guard session.refreshable, let refreshToken = session.refreshToken else { throw AuthError.sessionNotRefreshable }
        let reply = try await fdi.call("POST", "session/refresh", rid: "session", bearer: refreshToken)
        return try self.session(from: reply, user: session.user)
    }

    /// `loginmethods`: the first factors the API offers and its providers.
    public func authMethods() async throws -> AuthMethods {
        let reply = try await fdi.call("GET", "loginmethods", rid: "multitenancy").ok()
        let factors = Set(Self.strings(reply.body["firstFactors"]))
        var providers: [String] = []
        if case .object(let thirdParty)? = reply.body["thirdParty"], case .array(let items)? = thirdParty["providers"] {
            providers = items.compactMap { if case .object(let provider) = $0 { provider["id"]?.stringValue } else { nil } }
        }
        return AuthMethods(
            password: factors.contains("emailpassword"), emailCode: factors.contains("otp-email"),
            emailLink: factors.contains("link-email"), oauth2Providers: providers)
    }

    public func externalAuths(userID: UserID, session: AuthSession) async throws -> [ExternalAuth] {
        throw AuthError.notSupported(.externalAuths)
    }

    public func unlinkExternalAuth(userID: UserID, provider: String, session: AuthSession) async throws {
        throw AuthError.notSupported(.externalAuths)
    }

    /// The Rownd plugin's `signout` ends every session of the account; keeping this one it cannot.
    public func signOutEverywhere(keepingCurrent: Bool, session: AuthSession) async throws {
        guard !keepingCurrent else { throw AuthError.notSupported(.sessionList) }
        try await fdi.call("POST", "plugin/rownd/signout", rid: "session", bearer: session.accessToken).ok()
    }

    /// A sign-in answer: the session, or — an access token whose `st-mfa` is unmet and no refresh
    /// token — the second step, named by that token, which `completeMFA` presents.
    func signedIn(_ reply: SuperTokensFDIHTTP.Reply) throws -> SignInResult {
        let reply = try reply.ok()
        let user = try SuperTokensUserBody.user(reply.body["user"])
        if reply.refreshToken == nil, let access = reply.accessToken,
            let claims = JWTPayload.decode(AccessClaims.self, from: access), claims.mfa?.v == false
        {
            return .secondStep(
                MFAChallenge(id: access, methods: [.totp], expiresAt: claims.exp.map(Date.init(timeIntervalSince1970:))))
        }
        return .signedIn(try session(from: reply, user: user))
    }

    /// The session an answer's headers carry, for `user`.
    func session(from reply: SuperTokensFDIHTTP.Reply, user: User) throws -> AuthSession {
        guard let access = reply.accessToken, let refresh = reply.refreshToken else {
            throw SuperTokensUserBody.badResponse("no st-access-token and st-refresh-token headers (cookie mode?)")
        }
        let expiry = JWTPayload.decode(AccessClaims.self, from: access)?.exp.map(Date.init(timeIntervalSince1970:))
        return AuthSession(accessToken: access, refreshToken: refresh, expiresAt: expiry, refreshable: true, user: user)
    }

    /// The access token's claims this client reads: its expiry and the MFA claim's `v`.
    struct AccessClaims: Decodable {
        var exp: Double?
        var mfa: MFA?

        struct MFA: Decodable { var v: Bool? }

        private enum CodingKeys: String, CodingKey {
            case exp
            case mfa = "st-mfa"
        }
    }

    /// `formFields` as the recipes take them: `[{id, value}]`.
    static func formFields(_ fields: KeyValuePairs<String, String>) -> JSONValue {
        .array(fields.map { .object(["id": .string($0.key), "value": .string($0.value)]) })
    }

    static func strings(_ value: JSONValue?) -> [String] {
        if case .array(let items)? = value { items.compactMap(\.stringValue) } else { [] }
    }
}
