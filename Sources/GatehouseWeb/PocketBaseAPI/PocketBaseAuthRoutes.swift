import Accounts
import AuthCore
import Foundation
import HTTPServer
import TwoFactor

/// `/api/collections/{users|_superusers}/auth-…` and the mailed-token flows, as PocketBase answers them.
struct PocketBaseAuthRoutes: Sendable {
    let api: PocketBaseAPI
    var env: PageEnvironment { api.env }

    func register(on router: inout Router) {
        let base = "/api/collections/:collection"
        api.on(&router, .get, base + "/auth-methods") { _, parameters in
            let collection = try api.collection(parameters, allowed: [.users, .superusers])
            var methods = authMethods()
            if collection == .users, let oauth = api.oauth {
                let providers = await PocketBaseOAuth2(api: api, feature: oauth).providers()
                methods.oauth2 = .init(enabled: !providers.isEmpty, providers: providers)
                methods.authProviders = providers
            }
            return try .json(methods)
        }
        api.on(&router, .post, base + "/auth-with-oauth2") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            guard let oauth = api.oauth else { throw AuthError.notSupported(.externalSignIn) }
            return try await PocketBaseOAuth2(api: api, feature: oauth).signIn(request, body: try api.body(request))
        }
        api.on(&router, .post, base + "/auth-with-password", signInWithPassword)
        api.on(&router, .post, base + "/auth-refresh", refresh)
        api.on(&router, .post, base + "/request-verification") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            let body = try api.body(request)
            // Answers 204 for every address, as PocketBase does, so it reveals no account — and for
            // an address over its budget, which gets no mail (PocketBase too skips a recent resend).
            if let email = PocketBaseAPI.text(body, "email"), EmailAddress.isPlausible(email) {
                try PocketBaseAPI.answer(
                    try await MailRequests(env: env.accounts, via: "pocketbase-api").verification(
                        email: email, withLink: true, request: request))
            }
            return Response(status: 204)
        }
        api.on(&router, .post, base + "/confirm-verification") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            let body = try api.body(request)
            _ = try await MailedCodeChecks(env: env.accounts, via: "pocketbase-api").completeVerification(
                linkToken: try Self.token(body), request: request)
            return Response(status: 204)
        }
        api.on(&router, .post, base + "/impersonate/:id", impersonate)
        PocketBaseLifecycleRoutes(api: api).register(on: &router)
    }

    /// PocketBase 0.40's `auth-methods`, with only the provider keys its SDKs decode (WIRE.md fact 11).
    private func authMethods() -> AuthMethodsBody {
        // What `--sign-in-methods` turned off is off here too (the owners refuse it).
        let otp = env.capabilities.contains(.emailOTP) && env.accounts.signInMethods.contains(.emailCode)
        // Accounts with an authenticator app on finish every sign-in with it (PocketBaseMFA); the
        // pending step lives as long as the embedded backend's challenge.
        let mfa = env.capabilities.contains(.mfa)
        return AuthMethodsBody(
            password: .init(enabled: env.accounts.signInMethods.contains(.password), identityFields: ["email"]),
            oauth2: .init(enabled: false, providers: []),
            mfa: .init(enabled: mfa, duration: mfa ? Self.mfaDuration : 0), otp: .init(enabled: otp, duration: otp ? 600 : 0),
            authProviders: [], usernamePassword: false, emailPassword: true)
    }

    /// Seconds a pending second step stays open (the shared `TOTPRules.stepLifetime`).
    static let mfaDuration = Int(TOTPRules.stepLifetime)

    private func signInWithPassword(_ request: Request, _ parameters: PathParameters) async throws -> Response {
        let collection = try api.collection(parameters, allowed: [.users, .superusers])
        let body = try api.body(request)
        let missing = PocketBaseAPI.required(body, ["identity", "password"])
        guard missing.isEmpty else {
            throw PocketBaseAnswer(400, "An error occurred while validating the submitted data.", data: missing)
        }
        if let field = PocketBaseAPI.text(body, "identityField"), !field.isEmpty, field != "email" {
            throw PocketBaseAnswer(
                400, "An error occurred while validating the submitted data.",
                data: ["identityField": .init(code: "validation_in_invalid", message: "Only email identifies an account.")])
        }
        let (identity, password) = (PocketBaseAPI.text(body, "identity") ?? "", PocketBaseAPI.text(body, "password") ?? "")
        if collection == .superusers {
            switch try await env.staffSignIn.attempt(
                email: identity, password: password, request: request, via: "pocketbase-api")
            {
            case .signedIn(let superuser):
                return try await superuserResponse(superuser, request: request, secondStep: nil)
            case .secondStep(_, let pending):
                // PocketBase's answer when a second method must follow (`auth-with-otp` with the `mfaId`).
                return try PocketBaseAPI.json(["mfaId": .string(pending)], status: 401)
            case .refused, .throttled:
                throw AuthError.invalidCredentials
            }
        }
        return try await answer(
            try await PasswordSignIn(env: env.accounts, via: "pocketbase-api").attempt(
                email: identity, password: password, request: request), request: request)
    }

    /// `{token, record}` for a superuser whose sign-in is complete, over a new console session.
    func superuserResponse(
        _ superuser: StaffMember, request: Request, secondStep: SecondFactor.Method?
    ) async throws -> Response {
        let session = try await env.console.open(
            for: superuser, at: .pocketBaseAPI, request: request, secondStep: secondStep, via: "pocketbase-api")
        return try PocketBaseAPI.json([
            "token": .string(api.tokens.token(for: superuser, on: session)),
            "record": .object(PocketBaseRecord.superuser(superuser))
        ])
    }

    /// A new token on the same session; PocketBase answers a non-refreshable one with itself.
    private func refresh(_ request: Request, _ parameters: PathParameters) async throws -> Response {
        let collection = try api.collection(parameters, allowed: [.users, .superusers])
        switch await api.tokens.caller(request) {
        case .user(let signedIn, let claims) where collection == .users:
            let token = try await api.tokens.renewed(
                claims, signedIn: signedIn, token: request.bareOrBearerToken ?? "")
            return try PocketBaseAPI.json([
                "token": .string(token), "record": .object(PocketBaseRecord.user(signedIn.user, showEmail: true))
            ])
        case .superuser(let staff) where collection == .superusers:
            guard let token = api.tokens.renewed(staff, token: request.bareOrBearerToken ?? "") else {
                throw PocketBaseAnswer(401, PocketBaseError.standardMessage(for: 401))
            }
            return try PocketBaseAPI.json([
                "token": .string(token), "record": .object(PocketBaseRecord.superuser(staff.superuser))
            ])
        default:
            throw PocketBaseAnswer(401, PocketBaseError.standardMessage(for: 401))
        }
    }

    /// A non-refreshable token for another account, for superusers only. The duration comes from
    /// the body, or from the query when the body has none (BosBase sends `?duration=`); the body's
    /// `reason` and `ticket` (Gatehouse's own fields) say why, as `--impersonation-reason` asks.
    private func impersonate(_ request: Request, _ parameters: PathParameters) async throws -> Response {
        _ = try api.collection(parameters, allowed: [.users])
        guard case .superuser(let staff) = await api.tokens.caller(request) else {
            throw PocketBaseAnswer(
                401, "The request requires valid record authorization token.")
        }
        let body = try api.body(request)
        let requested: Double? =
            if case .number(let seconds) = body["duration"] { seconds } else {
                try request.query.single("duration").flatMap(Double.init)
            }
        let duration = Impersonation.clamp(requested.flatMap { $0 > 0 ? $0 : nil } ?? Impersonation.maximumDuration)
        let id = UserID(try parameters.require("id"))
        let started: ImpersonationStart.Started
        switch try await ImpersonationStart(env: env.accounts, staff: staff, request: request, via: "pocketbase-api").start(
            id, delivery: .gatehouseToken, duration: duration, reason: body["reason"]?.stringValue ?? "",
            ticket: body["ticket"]?.stringValue ?? "")
        {
        case .started(let impersonation): started = impersonation
        case .refused(let refusal): throw PocketBaseAnswer(403, refusal.message)
        case .unexplained(let problem): throw PocketBaseAnswer(400, problem.message)
        }
        let session = started.session
        let token = try await api.tokens.issue(
            for: session, request: request, impersonator: staff.superuser.email, lifetime: Int(started.duration))
        return try PocketBaseAPI.json([
            "token": .string(token), "record": .object(PocketBaseRecord.user(session.user, showEmail: true))
        ])
    }

    /// A sign-in owner's answer in PocketBase's shape, for every way in to `users`: `{token,
    /// record}` (and a provider sign-in's `meta`) on a new Gatehouse session row for this app, 401
    /// `{mfaId}` when a second method must follow (`auth-with-otp` with the `mfaId`), or the
    /// refusal as `refusal` words it for the route (the errors' renderer by default).
    func answer(
        _ result: SignInResult, request: Request, meta: JSONValue? = nil,
        refusal: (SignInRefusal) -> any Error = { $0.error }
    ) async throws -> Response {
        switch result {
        case .signedIn(let session):
            var body: [String: JSONValue] = [
                "token": .string(try await api.tokens.issue(for: session, request: request)),
                "record": .object(PocketBaseRecord.user(session.user, showEmail: true))
            ]
            body["meta"] = meta
            return try PocketBaseAPI.json(body)
        case .secondStep(let challenge):
            return try PocketBaseAPI.json(["mfaId": .string(challenge.id)], status: 401)
        case .refused(let reason):
            throw refusal(reason)
        }
    }

    /// The body's `token`, or PocketBase's "Cannot be blank." for it.
    static func token(_ body: [String: JSONValue]) throws -> String {
        guard let token = PocketBaseAPI.text(body, "token"), !token.isEmpty else {
            throw PocketBaseAnswer(
                400, "An error occurred while validating the submitted data.",
                data: ["token": .init(code: "validation_required", message: "Cannot be blank.")])
        }
        return token
    }
}

/// The body of `auth-methods`.
private struct AuthMethodsBody: Encodable {
    struct Password: Encodable {
        var enabled: Bool
        var identityFields: [String]
    }
    struct OAuth2: Encodable {
        var enabled: Bool
        var providers: [PocketBaseOAuth2.ProviderInfo]
    }
    struct Timed: Encodable {
        var enabled: Bool
        var duration: Int
    }

    var password: Password
    var oauth2: OAuth2
    var mfa: Timed
    var otp: Timed
    var authProviders: [PocketBaseOAuth2.ProviderInfo]
    var usernamePassword: Bool
    var emailPassword: Bool
}
