import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// A SuperTokens core (Core Driver Interface 5.4) for apps on SuperTokens' backend SDKs: the app
/// points `connection_uri` at Gatehouse and its users, sessions and mail are Gatehouse's. A thin
/// front-end over the owners every way in uses; every business outcome is HTTP 200 with a
/// `status`, as the SDKs raise any other answer as an exception. Callers must send the server's
/// API key (`SuperTokensAPIKey`) as `api-key`, from loopback too.
struct SuperTokensCore: Sendable {
    /// The CDI versions this core speaks (`GET /apiversion`); a `cdi-version` header naming another
    /// is refused as the core refuses it.
    static let versions = ["5.4"]
    /// The name audit rows carry for this way in.
    static let via = "supertokens-core"

    let env: PageEnvironment
    let tokens: SuperTokensTokens
    /// Passwordless sign-in requests in progress.
    var devices: AppSignInDevices { AppSignInDevices(env: env.accounts) }
    /// What the TOTP recipe's devices keep beyond the account's authenticator.
    var authenticators: AppAuthenticatorDevices { AppAuthenticatorDevices(env: env.accounts) }

    /// The acts the app's backend takes for its users, audited as this way in.
    var acts: AppBackendActs { AppBackendActs(env: env.accounts, via: Self.via) }

    func register(on router: inout Router) {
        // Unknown paths under the core's prefixes answer in its words (plain text).
        for prefix in ["/recipe", "/public", "/users", "/user", "/apiversion"] {
            router.errors(under: prefix) { status, message in .text(message, status: status) }
        }
        let apiVersion: Router.Handler = { request, parameters in
            try await guarded(request, parameters, needsKey: false) { try .json(["versions": Self.versions]) }
        }
        let jwks: Router.Handler = { request, parameters in
            try await guarded(request, parameters, needsKey: false) { try .json(tokens.jwks) }
        }
        for prefix in ["", "/:app"] {
            router.on(.get, prefix + "/apiversion", apiVersion)
            router.on(.get, prefix + "/.well-known/jwks.json", jwks)
        }
        on(&router, .get, "/recipe/multitenancy/tenant/v2", tenantScoped: true) { _, _ in
            try .json(PublicTenant())
        }
        SuperTokensAccountRoutes(core: self).register(on: &router)
        SuperTokensSessionRoutes(core: self).register(on: &router)
        SuperTokensSessionInfoRoutes(core: self).register(on: &router)
        SuperTokensPasswordlessRoutes(core: self).register(on: &router)
        SuperTokensMetadataRoutes(core: self).register(on: &router)
        SuperTokensUserListRoutes(core: self).register(on: &router)
        SuperTokensTOTPRoutes(core: self).register(on: &router)
        SuperTokensIdentityRoutes(core: self).register(on: &router)
    }

    /// A sign-in owner's answer as the core gives it to an app's backend: the account the app opens
    /// its own session for next — the backend session the sign-in opened closed (`handOver`), or,
    /// when a second step is owed, no session at all and the step left waiting for the app's MFA
    /// recipe (`totp/verify`), its wrong codes counted afresh. Nil when refused, or when no account
    /// has `email`.
    func signedInUser(_ result: SignInResult, email: String) async throws -> User? {
        switch result {
        case .signedIn(let session):
            return await acts.handOver(session)
        case .secondStep(let challenge):
            guard let user = try await accounts(email: email).first else { return nil }
            try await SecondStepSignIn(env: env.accounts, via: Self.via).remember(challenge, for: user.email)
            try await authenticators.resetFailures(user.id.rawValue)
            return user
        case .refused:
            return nil
        }
    }

    /// The accounts with this address (the only account info Gatehouse keeps): none or one, read
    /// exactly by the normalized address.
    func accounts(email: String) async throws -> [User] {
        try await UserDirectory(env: env.accounts).user(email: email).map { [$0] } ?? []
    }

    /// Registers `handler` for `path`, and for `/public` + `path` when the route is tenant-scoped
    /// (the SDKs name the public tenant; it is the only one); each also under an app's prefix,
    /// `/appid-<id>` (one app: every id names it).
    func on(
        _ router: inout Router, _ method: HTTPMethod, _ path: String, tenantScoped: Bool = false,
        _ handler: @escaping @Sendable (Request, [String: JSONValue]) async throws -> Response
    ) {
        let route: Router.Handler = { request, parameters in
            try await guarded(request, parameters, needsKey: true) {
                try await handler(request, method == .get ? [:] : try Self.body(request))
            }
        }
        for prefix in ["", "/:app"] {
            router.on(method, prefix + path, route)
            if tenantScoped { router.on(method, prefix + "/public" + path, route) }
        }
    }

    /// The core's checks before any route — an app prefix that is one, the API key, the
    /// `cdi-version` — and its answers for what a route throws.
    private func guarded(
        _ request: Request, _ parameters: PathParameters, needsKey: Bool, _ route: () async throws -> Response
    ) async rethrows -> Response {
        if let app = parameters["app"], !app.hasPrefix("appid-") { return .text("Not Found", status: 404) }
        if needsKey {
            guard let key = env.configuration.superTokensAPIKey, let sent = request.headers["api-key"],
                KeyedHash.constantTimeEquals(sent, key)
            else { return .text("Invalid API key", status: 401) }
        }
        if let version = request.headers["cdi-version"], !Self.versions.contains(version) {
            return .text("cdi-version \(version) not supported", status: 400)
        }
        do {
            return try await route()
        } catch let answer as CoreAnswer {
            return .text(answer.message, status: answer.status)
        } catch let error as AuthError {
            return CoreAnswer(error).response
        } catch let error as RequestError {
            return .text(error.message, status: 400)
        }
    }

    /// The JSON body as an object; the core's 400 for anything else.
    static func body(_ request: Request) throws -> [String: JSONValue] {
        guard request.declaresJSON else { throw RequestError.unsupportedMediaType }
        guard case .object(let object)? = request.jsonValue else {
            throw CoreAnswer(400, "Invalid Json Input")
        }
        return object
    }

    /// A required string field; the core's 400 naming it when missing or of another type.
    static func text(_ body: [String: JSONValue], _ key: String) throws -> String {
        guard case .string(let value)? = body[key] else {
            throw CoreAnswer(400, "Field name '\(key)' is invalid in JSON input")
        }
        return value
    }

    /// An optional string field (absent or null is nil); the core's 400 for another type.
    static func optionalText(_ body: [String: JSONValue], _ key: String) throws -> String? {
        switch body[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw CoreAnswer(400, "Field name '\(key)' is invalid in JSON input")
        }
    }

    /// An optional boolean field; the core's 400 for another type.
    static func flag(_ body: [String: JSONValue], _ key: String, default fallback: Bool = false) throws -> Bool {
        switch body[key] {
        case nil, .null?: return fallback
        case .bool(let value)?: return value
        default: throw CoreAnswer(400, "Field name '\(key)' is invalid in JSON input")
        }
    }

    /// A required query parameter; the core's 400 naming it.
    static func query(_ request: Request, _ key: String) throws -> String {
        guard let value = try request.query.single(key), !value.isEmpty else {
            throw CoreAnswer(400, "Field name '\(key)' is missing in GET request")
        }
        return value
    }

    /// A business outcome: HTTP 200 with `status` and the fields the SDK reads.
    static func status(_ status: String, _ fields: [String: JSONValue] = [:]) -> Response {
        // `JSONValue`'s writer: `JSONEncoder`'s bytes (sorted keys), without its generic containers.
        .json(raw: JSONValue.object(fields.merging(["status": .string(status)]) { _, own in own }).serialized)
    }
}

/// An answer the core gives outside its `status` bodies: an HTTP error with a plain-text message.
struct CoreAnswer: Error {
    var status: Int
    var message: String

    init(_ status: Int, _ message: String) { (self.status, self.message) = (status, message) }

    /// Gatehouse's refusals in the core's words: a throttled request is 429 (the core has no
    /// status for it; the SDK raises it), a refused value 400 with the reason.
    init(_ error: AuthError) {
        switch error {
        case .rateLimited(let retryAfter): self.init(429, "Too many requests; try again in \(retryAfter) s")
        case .validation(let fields): self.init(400, fields.map { "\($0.field): \($0.message)" }.joined(separator: "; "))
        default: self.init(400, "\(error)")
        }
    }

    var response: Response { .text(message, status: status) }
}

/// The public tenant as `tenant/v2` describes it: every first factor the SDK's recipes offer.
private struct PublicTenant: Encodable {
    var status = "OK"
    var tenantId = "public"
    var thirdParty = ThirdParty()
    var firstFactors: [String]? = nil
    var requiredSecondaryFactors: [String]? = nil
    var coreConfig: [String: String] = [:]

    struct ThirdParty: Encodable { var providers: [String] = [] }

    enum CodingKeys: String, CodingKey { case status, tenantId, thirdParty, firstFactors, requiredSecondaryFactors, coreConfig }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(tenantId, forKey: .tenantId)
        try container.encode(thirdParty, forKey: .thirdParty)
        try container.encode(firstFactors, forKey: .firstFactors)  // explicit nulls, as the core sends
        try container.encode(requiredSecondaryFactors, forKey: .requiredSecondaryFactors)
        try container.encode(coreConfig, forKey: .coreConfig)
    }
}
