import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The Descope-compatible auth API (`/v1/auth/…`, `/v2/keys/{projectId}`): apps on Descope's SDKs
/// (DescopeKit, the Python `descope` package) point their base URL at Gatehouse unchanged. A thin
/// adapter: every act is the owner's the pages use (budgets, audit, sessions included), under
/// this way in's policy (`WayInPolicy.descopeAPI`), and every answer has Descope's shape.
///
/// A class: every route's handler holds it, and copying the struct's environment into each call
/// was ~2 % of a `refresh` in value-witness copies alone.
final class DescopeAPI: Sendable {
    /// Names this way in in the audit data.
    static let via = "descope-api"

    let env: PageEnvironment
    let project: DescopeProject
    let tokens: DescopeTokens
    let addresses: DescopeAppAddresses

    init(env: PageEnvironment, project: DescopeProject, tokens: DescopeTokens, registry: ProviderRegistry?) {
        self.env = env
        self.project = project
        self.tokens = tokens
        self.addresses = DescopeAppAddresses(configuration: env.configuration, registry: registry)
    }

    func register(on router: inout Router) {
        router.on(.get, "/v2/keys/:project") { _, parameters in
            guard self.project.knows(try parameters.require("project")) else {
                return DescopeError.response(404, DescopeCode.invalidRequest, "Unknown project", "No such project id")
            }
            return try .json(self.tokens.keys)
        }
        DescopeSessionRoutes(api: self).register(on: &router)
        DescopePasswordRoutes(api: self).register(on: &router)
        DescopePasswordlessRoutes(api: self).register(on: &router)
        DescopeTOTPRoutes(api: self).register(on: &router)
        DescopeEmailUpdateRoutes(api: self).register(on: &router)
        DescopeEnchantedLinkRoutes(api: self).register(on: &router)
        if env.configuration.testControls != .off { DescopeManagement(api: self).register(on: &router) }
    }

    /// One call: the project it names, the refresh JWT beside it, its JSON body, and when it began.
    struct Call: Sendable {
        let request: Request
        let project: String
        let refreshJwt: String?
        let body: [String: JSONValue]
        let started: Date

        /// A string field; nil when absent or null, Descope's 400 naming it when it is another type.
        func text(_ key: String) throws(DescopeAnswer) -> String? {
            switch body[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "\(key) must be a string")
            }
        }

        /// A string field that must be there and not empty.
        func required(_ key: String) throws(DescopeAnswer) -> String {
            guard let value = try text(key), !value.isEmpty else { throw .missing(key) }
            return value
        }

        /// The `loginId`, which Gatehouse takes as an email address.
        func loginID() throws(DescopeAnswer) -> String { try Self.email(try required("loginId")) }

        /// The `loginId` at the top level (DescopeKit) or inside `user` (the Python SDK's passkey sign-up).
        func loginIDAtTopOrInUser() throws(DescopeAnswer) -> String {
            guard body["loginId"] == nil, case .object(let user)? = body["user"], let id = user["loginId"]?.stringValue else {
                return try loginID()
            }
            return try Self.email(id)
        }

        /// The sign-up's `user` fields Gatehouse keeps as the account's profile: `name` and the
        /// name parts (`givenName`, `middleName`, `familyName`), each a string of at most 200 characters.
        func userProfile() -> [String: JSONValue] {
            guard case .object(let user)? = body["user"] else { return [:] }
            var fields: [String: JSONValue] = [:]
            for key in DescopeUser.nameKeys {
                guard let value = user[key]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty
                else { continue }
                fields[key] = .string(String(value.prefix(200)))
            }
            return fields
        }

        /// The sign-up's `user` fields as the profile of an account the call may create; nil when
        /// it may not, or names none.
        func signUpProfile(creating: Bool) -> Profile? {
            let fields = userProfile()
            return creating && !fields.isEmpty ? Profile(fields) : nil
        }

        /// The sign-up's `user.name`.
        func userName() -> String? { userProfile()["name"]?.stringValue }

        private static func email(_ loginID: String) throws(DescopeAnswer) -> String {
            let email = loginID.trimmingCharacters(in: .whitespacesAndNewlines)
            guard EmailAddress.isPlausible(email) else {
                throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "loginId must be an email address")
            }
            return email
        }
    }

    /// A route whose every refusal answers in Descope's shape. The project is checked before
    /// anything else; GET routes have no body.
    func on(
        _ router: inout Router, _ method: HTTPMethod, _ path: String,
        _ handler: @escaping @Sendable (Call) async throws -> Response
    ) {
        router.on(method, path) { request, _ in
            do {
                let (project, fromHeader) = try self.project.caller(request)
                // A project whose tokens live in cookies sends the refresh JWT as `DSR` instead.
                let refreshJwt = fromHeader ?? request.cookies[DescopeCookies.refresh].flatMap { $0.isEmpty ? nil : $0 }
                let body = method == .get ? [:] : try Self.object(request)
                return try await handler(
                    Call(request: request, project: project, refreshJwt: refreshJwt, body: body, started: self.env.clock()))
            } catch let error as AuthError {
                return DescopeError.response(for: error)
            } catch let answer as DescopeAnswer {
                return answer.response
            } catch is AccountDisabled {
                return DescopeError.response(403, DescopeCode.userDisabled, "User disabled", "The user is disabled")
            }
        }
    }

    /// The app address a mailed link is to open (the Python SDK's `URI`, DescopeKit's
    /// `redirectUrl`); nil when the call names none (the link opens Gatehouse's own page).
    /// Descope's invalid-argument error for an address that is not allowed (`DescopeAppAddresses`).
    func appLink(_ call: Call) async throws -> String? {
        let named = try call.text("URI") ?? call.text("redirectUrl") ?? call.text("redirectURL")
        guard let uri = named?.trimmingCharacters(in: .whitespaces), !uri.isEmpty else { return nil }
        guard try await addresses.allowsLink(uri) else {
            throw DescopeAnswer(
                400, DescopeCode.invalidArguments, "Invalid arguments",
                "The redirect URL is not allowed: register it as an app callback or pass --descope-redirect-origin")
        }
        return uri
    }

    /// The live session behind the call's refresh JWT, or Descope's 401.
    func holder(_ call: Call) async throws(DescopeAnswer) -> DescopeTokens.Holder {
        guard let jwt = call.refreshJwt, let holder = await tokens.holder(of: jwt, project: call.project) else {
            throw .unauthorized
        }
        return holder
    }

    /// Descope names the account in the body too: it must be the refresh JWT's.
    func requireOwnLoginID(_ call: Call, _ signedIn: SignedIn) throws {
        guard EmailAddress.normalize(try call.loginID()) == EmailAddress.normalize(signedIn.user.email) else {
            throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "loginId is not the signed-in user's")
        }
    }

    /// A sign-in owner's answer in Descope's shape, for every way in under `/v1/auth`: the session's
    /// `JWTResponse`; for a second step owed, 403 "Second step required" — the step kept by address
    /// for `totp/verify {loginId, code}` when `keepingStepFor` names it; a refusal as the errors'
    /// renderer words it.
    func answer(
        _ result: SignInResult, amr: [String], call: Call, keepingStepFor email: String? = nil
    ) async throws -> Response {
        switch result {
        case .signedIn(let session):
            return try await signedIn(session, amr: amr, call: call)
        case .secondStep(let challenge):
            if let email { try await SecondStepSignIn(env: env.accounts, via: Self.via).remember(challenge, for: email) }
            return DescopeAnswer.secondStepOwed.response
        case .refused(let refusal):
            throw refusal.error
        }
    }

    /// Signed in: a new session row and its JWTs, answered as Descope's `JWTResponse`. `firstSeen`
    /// is the account's first sign-in: nil works it out — the account was made during this call (a
    /// code or link for a new address).
    func signedIn(
        _ session: AuthSession, amr: [String], call: Call, firstSeen: Bool? = nil
    ) async throws -> Response {
        let issued = try await tokens.issue(for: session, project: call.project, amr: amr, request: call.request)
        return try jwtResponse(
            session: issued.sessionJwt, refresh: issued.refreshJwt, expiresAt: issued.refreshExpiresAt,
            user: DescopeUser(session.user, amr: amr),
            firstSeen: firstSeen ?? (Self.milliseconds(session.user.createdAt) >= Self.milliseconds(call.started)))
    }

    /// Both JWTs in the body, or — `--descope-token-cookies` — as the `DS` and `DSR` cookies with the
    /// body's `refreshJwt` empty (the SDKs then read the cookie). A nil `refresh` is `refresh`'s
    /// answer: the refresh JWT is not rotated, and Descope answers one there only when it rotates
    /// (every SDK keeps the one it sent), so neither the body nor a cookie carries it.
    func jwtResponse(session: String, refresh: String?, expiresAt: Int, user: DescopeUser, firstSeen: Bool) throws -> Response {
        let now = Int(env.accounts.clocks.now(for: user.user.id).timeIntervalSince1970)
        let maxAge = max(expiresAt - now, 0)
        let inCookies = env.configuration.descopeTokenCookies
        // A refresh JWT handed out in the `DSR` cookie leaves the body's field empty.
        let bodyRefresh = inCookies ? refresh.map { _ in "" } : refresh
        var response = Response.json(
            raw: JWTResponse(
                sessionJwt: session, refreshJwt: bodyRefresh, cookieMaxAge: maxAge, cookieExpiration: expiresAt, user: user,
                firstSeen: firstSeen
            ).serialized)
        if inCookies {
            cookies.set(
                session: session, sessionMaxAge: min(Int(tokens.sessionLifetime), maxAge), refresh: refresh,
                refreshMaxAge: maxAge, on: &response)
        }
        return response
    }

    /// The `DS`/`DSR` cookies of a project whose tokens live in cookies.
    var cookies: DescopeCookies { DescopeCookies(secure: env.configuration.usesTLS) }

    /// Whole milliseconds since 1970: the store keeps dates to the millisecond.
    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The JSON body as an object (`{}` when empty); unreadable JSON, or JSON that is not an
    /// object, is the family's 400. Read by `JSONValue`'s own reader: `JSONDecoder` was a
    /// measurable share of `refresh`, whose body is `{}`.
    static func object(_ request: Request) throws(DescopeAnswer) -> [String: JSONValue] {
        if request.body.isEmpty { return [:] }
        guard request.declaresJSON else {
            throw DescopeAnswer(415, DescopeCode.badRequest, "Request failed", "Unsupported content type.")
        }
        guard case .object(let fields)? = request.jsonValue else {
            throw DescopeAnswer(400, DescopeCode.badRequest, "Bad request", "The body must be a JSON object")
        }
        return fields
    }
}
