import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// The InsForge-compatible auth API (`/api/auth/…`): apps on InsForge's SDKs point at Gatehouse
/// unchanged. A thin adapter: the account operations are the ones the pages use (their budgets,
/// audit and sessions included), and every answer has InsForge's shape.
/// Signed-out calls carry the app's anon key as `Bearer`: any key is accepted unless `--anon-key`
/// names one, and a key is never mistaken for a user's token.
struct InsForgeAPI: Sendable {
    let env: PageEnvironment
    let tokens: InsForgeTokens
    var delivery: InsForgeDelivery { InsForgeDelivery(env: env, tokens: tokens) }

    func register(on router: inout Router) {
        on(&router, .post, "/api/auth/users", signUp)
        on(&router, .post, "/api/auth/sessions", signIn)
        on(&router, .post, "/api/auth/email/send-verification") { request, _ in
            // The same answer for every address: it reveals no account. The address's budget is
            // taken whether or not it has one, so a held request (429, as InsForge answers its own
            // cool-down) reveals none either.
            if case .held(let refusal) = try await MailRequests(env: env.accounts, via: "insforge-api").verification(
                email: try Self.email(try Self.object(request)), request: request)
            {
                throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
            }
            return try .json(
                Message(
                    success: true, message: "If that address has an account waiting for verification, a new email is on its way."),
                status: 202)
        }
        on(&router, .post, "/api/auth/email/verify", verifyEmail)
        on(&router, .get, "/api/auth/email/verify-link") { request, _ in
            // Gatehouse's own confirmation page does the work (InsForge needs a `redirectTo` here).
            let token = try request.query.single("token") ?? ""
            return .redirect(to: URLQuery.path("/auth/verify-link", [("token", token)]))
        }
        on(&router, .get, "/api/auth/sessions/current") { request, _ in
            let signedIn = try await requireSignedIn(request)
            return try .json(["user": InsForgeUser(signedIn.user, providers: try await providers(of: signedIn))])
        }
        on(&router, .patch, "/api/auth/profiles/current") { request, _ in
            let signedIn = try await requireSignedIn(request)
            guard case .object(let patch)? = try Self.object(request)["profile"] else {
                throw InsForgeAnswer(400, "INVALID_INPUT", "profile: send an object of the keys to set (null removes one).")
            }
            let user = try await ProfileUpdate(env: env.accounts, via: "insforge-api").apply(
                patch, of: signedIn, request: request)
            return try .json(ProfileBody(id: user.id.rawValue, profile: user.profile))
        }
        on(&router, .get, "/api/auth/profiles/:id") { _, parameters in
            let user = try await UserDirectory(env: env.accounts).user(UserID(try parameters.require("id")))
            return try .json(ProfileBody(id: user.id.rawValue, profile: user.profile))
        }
        on(&router, .post, "/api/auth/refresh", refresh)
        on(&router, .post, "/api/auth/logout") { request, _ in
            _ = try delivery.checkedCookie(request)
            if let signedIn = await tokens.signedIn(request) {
                try await tokens.sessions.signOut(signedIn, request: request, via: "insforge-api")
            }
            var response = try Response.json(Message(success: true, message: "Logged out successfully"))
            delivery.clearCookie(&response)
            return response
        }
        InsForgeAdminRoutes(api: self).register(on: &router)
        InsForgePasswordResetRoutes(api: self).register(on: &router)
        InsForgeOTPRoutes(api: self).register(on: &router)
    }

    // MARK: Routes

    private func signUp(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try Self.object(request)
        let (email, password) = (Self.text(body, "email") ?? "", Self.text(body, "password") ?? "")
        let client = try InsForgeDelivery.clientType(request)
        let outcome: SignUpOutcome
        do {
            outcome = try await SignUp(env: env.accounts, via: "insforge-api", policy: .insForgeAPI).attempt(
                SignUpRequest(email: email, password: password, name: Self.text(body, "name")), for: .browserSession,
                request: request)
        } catch AuthError.emailExists where env.verificationMode != .none {
            return try await takenAddress(email, name: Self.text(body, "name"), request: request)
        }
        guard let session = outcome.session else {
            // No tokens until the address is verified (InsForge's answer; its SDK saves no session).
            // The user is included (InsForge leaves it out; its SDK reads it when present).
            return try .json(
                PendingSignUp(
                    user: InsForgeUser(outcome.user, providers: []), accessToken: nil, requireEmailVerification: true))
        }
        return try await delivery.response(
            outcome.user, tokens: try await tokens.issue(for: session, request: request), client: client)
    }

    /// While addresses are verified, a taken address signs up like a free one (its owner was mailed
    /// about the try): a pending sign-up of an account that will never verify, so the reply tells
    /// nobody the address has an account — as the sign-up page answers (a departure from InsForge's
    /// 409, see the README).
    private func takenAddress(_ email: String, name: String?, request: Request) async throws -> Response {
        await SignUp(env: env.accounts, via: "insforge-api", policy: .insForgeAPI).refusedTakenAddress(email, request: request)
        let now = env.clock()
        var profile = Profile()
        if let name = name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty {
            profile.fields["name"] = .string(name)
        }
        let stranger = User(
            id: UserID(SecureRandom.userID()), email: email, emailVerified: false, profile: profile, createdAt: now,
            updatedAt: now)
        return try .json(
            PendingSignUp(user: InsForgeUser(stranger, providers: []), accessToken: nil, requireEmailVerification: true))
    }

    /// `method` picks the way in: `password` (also when absent or null, as InsForge's older
    /// clients send no method) or `otp` (a mailed code, `InsForgeOTPRoutes`).
    private func signIn(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try Self.object(request)
        switch body["method"] {
        case nil, .null?, .string("password")?: break
        case .string("otp")?: return try await InsForgeOTPRoutes(api: self).signIn(request, body: body)
        default: throw InsForgeAnswer(400, "INVALID_INPUT", "method: send \"password\" or \"otp\".")
        }
        let email = try Self.email(body)
        guard let password = Self.text(body, "password"), !password.isEmpty else {
            throw InsForgeAnswer(400, "INVALID_INPUT", "password: Required")
        }
        let client = try InsForgeDelivery.clientType(request)
        return try await answer(
            try await PasswordSignIn(env: env.accounts, via: "insforge-api").attempt(
                email: email, password: password, request: request), client: client, request: request)
    }

    /// A sign-in owner's answer in InsForge's shape, for every way in under `/api/auth`: the
    /// session's tokens delivered to `client` (for `user`, when the caller knows it better), the
    /// second step's stop (InsForge's SDK has none), or the refusal as the errors' renderer words it.
    func answer(_ result: SignInResult, user: User? = nil, client: ClientType, request: Request) async throws
        -> Response
    {
        switch result {
        case .signedIn(let session):
            return try await delivery.response(
                user ?? session.user, tokens: try await tokens.issue(for: session, request: request), client: client)
        case .secondStep: return InsForgeError.secondStepOwed
        case .refused(let refusal): throw refusal.error
        }
    }

    /// A right code (or, in link mode, the link's token) verifies the address and signs in — through
    /// the backend's sign-in, so an account with a second step answers `AUTH_MFA_REQUIRED`.
    private func verifyEmail(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try Self.object(request)
        let client = try InsForgeDelivery.clientType(request)
        guard let otp = Self.text(body, "otp"), !otp.isEmpty else {
            throw InsForgeAnswer(400, "INVALID_INPUT", "otp: enter the code from the email.")
        }
        let outcome = try await MailedCodeChecks(env: env.accounts, via: "insforge-api").completeVerification(
            email: Self.text(body, "email") ?? "", code: otp, request: request)
        guard let user = outcome.verifiedUser else { throw AuthError.invalidCode }
        guard let signIn = outcome.signIn else {
            // A backend that verifies without signing in (PocketBase): the app signs in next.
            throw InsForgeAnswer(401, "AUTH_UNAUTHORIZED", "The address is verified. Sign in to continue.")
        }
        return try await answer(signIn, user: user, client: client, request: request)
    }

    private func refresh(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try Self.object(request)
        let fromCookie =
            request.cookies[InsForgeDelivery.refreshCookie] != nil && Self.text(body, "refreshToken") == nil
            && Self.text(body, "refresh_token") == nil
        guard let presented = try delivery.presentedRefreshToken(request, body: body) else {
            throw InsForgeAnswer(401, "AUTH_UNAUTHORIZED", "No refresh token: send refreshToken or the refresh cookie.")
        }
        let (issued, user) = try await tokens.refresh(presented)
        let client = try InsForgeDelivery.clientType(request, fallback: fromCookie ? .web : .mobile)
        return try await delivery.response(user, tokens: issued, client: client)
    }

    // MARK: Plumbing

    /// A route whose seam errors answer in InsForge's words. A bearer on the request is either one of
    /// this API's access tokens or the app's anon key, checked against `--anon-key` when one is set.
    func on(
        _ router: inout Router, _ method: HTTPMethod, _ path: String,
        _ handler: @escaping @Sendable (Request, PathParameters) async throws -> Response
    ) {
        router.on(method, path) { request, parameters in
            do {
                if let anonKey = env.configuration.anonKey, let bearer = request.bearerToken, bearer != anonKey,
                    !tokens.isAccessToken(bearer)
                {
                    return InsForgeError.response(401, "AUTH_UNAUTHORIZED", "The anon key is not this server's.")
                }
                return try await handler(request, parameters)
            } catch let error as AuthError {
                return InsForgeError.response(for: error)
            } catch let answer as InsForgeAnswer {
                return answer.response
            } catch is AccountDisabled {
                return InsForgeError.response(403, "FORBIDDEN", "This account is disabled.")
            }
        }
    }

    func requireSignedIn(_ request: Request) async throws -> SignedIn {
        guard let signedIn = await tokens.signedIn(request) else {
            throw InsForgeAnswer(401, "AUTH_UNAUTHORIZED", "Send a valid access token as Authorization: Bearer TOKEN.")
        }
        return signedIn
    }

    private func providers(of signedIn: SignedIn) async throws -> [String] {
        (try? await ProviderLinks(env: env.accounts, via: "insforge-api").own(signedIn).map(\.provider)) ?? []
    }

    /// The JSON body as an object (`{}` when empty); unreadable JSON is the family's 400.
    static func object(_ request: Request) throws -> [String: JSONValue] {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        guard case .object(let object) = try request.decodeJSON(JSONValue.self) else {
            throw InsForgeAnswer(400, "INVALID_INPUT", "Send a JSON object.")
        }
        return object
    }

    /// The body's `email`, trimmed; InsForge's 400 naming the field when it is missing or not an address.
    static func email(_ body: [String: JSONValue]) throws -> String {
        let email = text(body, "email")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard EmailAddress.isPlausible(email) else { throw InsForgeAnswer(400, "INVALID_INPUT", "email: Invalid email address") }
        return email
    }

    /// An optional string field: nil when absent or null, InsForge's 400 naming it when it is another type.
    static func optionalText(_ body: [String: JSONValue], _ key: String) throws -> String? {
        switch body[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw InsForgeAnswer(400, "INVALID_INPUT", "\(key): Expected string")
        }
    }

    static func text(_ body: [String: JSONValue], _ key: String) -> String? {
        if case .string(let value) = body[key] { return value }
        return nil
    }
}

struct Message: Encodable {
    var success: Bool
    var message: String
}

private struct PendingSignUp: Encodable {
    enum CodingKeys: String, CodingKey { case user, accessToken, requireEmailVerification }
    var user: InsForgeUser
    var accessToken: String?
    var requireEmailVerification: Bool

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(accessToken, forKey: .accessToken)  // an explicit null, as InsForge sends
        try container.encode(requireEmailVerification, forKey: .requireEmailVerification)
    }
}

struct ProfileBody: Encodable {
    var id: String
    var profile: Profile
}
