import Accounts
import AuthCore
import Foundation
import HTTPServer

/// SuperTokens' Frontend Driver Interface (FDI): what a SuperTokens frontend (web-js, iOS,
/// Android, the Rownd SDK) calls on "the app's backend" at `apiBasePath`, answered by Gatehouse
/// itself so such a frontend needs no backend app. A thin front-end over the owners every way in
/// uses (`SignUp`, `PasswordSignIn`, `MailRequests`, `MailedCodeChecks`, `AppSessions`); its
/// sessions are the core API's (`SuperTokensTokens`: one key, one JWKS, one list of sessions).
/// Business outcomes are HTTP 200 with a `status`; session refusals are the SDKs' 401s.
struct SuperTokensFDI: Sendable {
    /// The name audit rows carry for this way in.
    static let via = "supertokens-fdi"

    let env: PageEnvironment
    let tokens: SuperTokensTokens
    /// `apiBasePath` without a trailing slash ("" for the root).
    let basePath: String
    let cors: FDICORS
    /// Provider sign-in (the thirdparty recipe); nil when the server has none.
    let oauth: OAuthFeature?

    init(env: PageEnvironment, tokens: SuperTokensTokens, oauth: OAuthFeature? = nil) {
        self.env = env
        self.tokens = tokens
        self.oauth = oauth
        let trimmed = env.configuration.superTokensAPIBasePath.split(separator: "/").joined(separator: "/")
        basePath = trimmed.isEmpty ? "" : "/" + trimmed
        cors = FDICORS(origins: Set(env.configuration.superTokensAppOrigins))
    }

    var sessions: FDISessions { FDISessions(fdi: self) }
    /// The guest accounts' owner, as this way in uses it.
    var guests: GuestSignUp { GuestSignUp(env: env.accounts, via: Self.via, policy: .superTokensFrontend) }

    /// Whether `user` is a guest account (the Rownd plugin's `guest` route made it).
    func isGuest(_ user: User) async throws -> Bool { try await guests.isGuest(user.id) }
    /// Where the refresh cookie is sent: the refresh route only.
    var refreshPath: String { basePath + "/session/refresh" }
    var secureCookies: Bool { env.configuration.usesTLS }
    /// The access token's `iss`: the API's address, as the SDK sets it (`apiDomain` + `apiBasePath`).
    var issuer: String { env.configuration.publicBaseURL + basePath }

    /// The first factors by email the server offers (`--sign-in-methods`), by SuperTokens' ids.
    var firstFactors: [String] {
        let methods = env.accounts.signInMethods
        let code = methods.contains(.emailCode) && env.capabilities.contains(.emailOTP)
        let link =
            env.configuration.superTokensWebsiteURL != nil && methods.contains(.magicLink)
            && env.capabilities.contains(.magicLink)
        return (methods.contains(.password) ? ["emailpassword"] : []) + (code ? ["otp-email"] : []) + (link ? ["link-email"] : [])
    }

    func register(on router: inout Router) {
        cors.register(on: &router, basePath: basePath)
        FDIEmailPasswordRoutes(fdi: self).register(on: &router)
        FDISessionRoutes(fdi: self).register(on: &router)
        FDIEmailVerificationRoutes(fdi: self).register(on: &router)
        FDIPasswordlessRoutes(fdi: self).register(on: &router)
        RowndPluginRoutes(fdi: self).register(on: &router)
        FDIMultiFactorRoutes(fdi: self).register(on: &router)
        if let oauth { FDIThirdPartyRoutes(fdi: self, feature: oauth).register(on: &router) }
    }

    /// Registers `handler` for `path` under the base path, and under the public tenant's prefix
    /// (`/public/…`, the only tenant).
    func on(
        _ router: inout Router, _ method: HTTPMethod, _ path: String,
        _ handler: @escaping @Sendable (Request) async throws -> Response
    ) {
        let route: Router.Handler = { request, _ in await guarded(request) { try await handler(request) } }
        router.on(method, basePath + path, route)
        router.on(method, basePath + "/public" + path, route)
    }

    /// Every FDI answer: the route's, its refusals in the SDK's shape, and CORS for an app's origin.
    private func guarded(_ request: Request, _ route: () async throws -> Response) async -> Response {
        var response: Response
        do {
            response = try await route()
        } catch let refusal as FDIRefusal {
            response = refusal.response(refreshPath: refreshPath, secure: secureCookies)
        } catch AuthError.rateLimited(let retryAfter) {
            response = FDIRefusal.rateLimited(retryAfter).response(refreshPath: refreshPath, secure: secureCookies)
        } catch let error as RequestError {
            response = FDIRefusal.badInput(error.message).response(refreshPath: refreshPath, secure: secureCookies)
        } catch let off as SignInMethodOff {
            response = Self.status("SIGN_IN_NOT_ALLOWED", ["reason": .string(off.message)])
        } catch {
            env.logger.error("SuperTokens FDI route failed", metadata: ["path": "\(request.path)", "error": "\(error)"])
            response = Self.status("GENERAL_ERROR", ["message": "Something went wrong; please try again"])
        }
        cors.apply(to: &response, for: request)
        return response
    }

    /// The JSON body as an object; the SDK's 400 for anything else.
    static func body(_ request: Request) throws -> [String: JSONValue] {
        guard case .object(let object)? = request.jsonValue else {
            throw FDIRefusal.badInput("Please send a JSON object as the request body")
        }
        return object
    }

    /// `formFields` (`[{id, value}]`) by id; the SDK's 400 when missing or malformed.
    static func formFields(_ body: [String: JSONValue], required: [String]) throws -> [String: String] {
        guard case .array(let items)? = body["formFields"] else {
            throw FDIRefusal.badInput("Missing input param: formFields")
        }
        var fields: [String: String] = [:]
        for case .object(let item) in items {
            guard case .string(let id)? = item["id"] else { continue }
            if case .string(let value)? = item["value"] { fields[id] = value }
        }
        for id in required where fields[id] == nil {
            throw FDIRefusal.badInput("Are you sending too many / too few formFields?")
        }
        return fields
    }

    /// A required string field; the SDK's 400 naming it.
    static func text(_ body: [String: JSONValue], _ key: String) throws -> String {
        guard case .string(let value)? = body[key], !value.isEmpty else {
            throw FDIRefusal.badInput("Please provide the \(key)")
        }
        return value
    }

    /// A business outcome: HTTP 200 with `status` and the fields the SDK reads.
    static func status(_ status: String, _ fields: [String: JSONValue] = [:]) -> Response {
        .json(raw: JSONValue.object(fields.merging(["status": .string(status)]) { _, own in own }).serialized)
    }

    /// `FIELD_ERROR` naming each refused form field.
    static func fieldError(_ errors: [(id: String, error: String)]) -> Response {
        status(
            "FIELD_ERROR",
            ["formFields": .array(errors.map { .object(["id": .string($0.id), "error": .string($0.error)]) })])
    }
}
