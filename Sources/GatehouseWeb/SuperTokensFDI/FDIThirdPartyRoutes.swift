import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth
import Secrets

/// The thirdparty recipe's FDI routes over Gatehouse's configured providers (and the built-in test
/// provider while it is served): `authorisationurl` (PKCE always; the OIDC nonce is a keyed hash of
/// the verifier, which only the frontend and Gatehouse see, so no round trip is stored; the
/// frontend adds its own `state` and checks it), `signinup` with the code the provider sent to the
/// frontend's page, or with a native SDK's Google or Apple ID token (`IDTokenSignIn`: signature
/// against the provider's JWKS, issuer, audience, expiry, each token once), and Apple's form post
/// back to the frontend. The identity signs in, links or creates the account through
/// `ProviderSignIn` as on the pages, under the same trust rule: an unproven account with the
/// address is never silently taken over.
struct FDIThirdPartyRoutes: Sendable {
    /// The recipe's factor id in the `st-mfa` claim.
    static let factor = "thirdparty"
    let fdi: SuperTokensFDI
    let feature: OAuthFeature
    private var env: PageEnvironment { fdi.env }

    func register(on router: inout Router) {
        fdi.on(&router, .get, "/authorisationurl", authorisationURL)
        fdi.on(&router, .post, "/signinup", signInUp)
        fdi.on(&router, .post, "/callback/apple", appleCallback)
    }

    /// The providers a frontend may use: live ones, and test-mode ones while the test provider is served.
    func provider(named name: String) async throws -> ProviderConfiguration {
        guard feature.backendSignsInWithProviders, let provider = try await feature.registry.provider(named: name),
            provider.mode == .live || feature.settings.testProviderEnabled
        else { throw FDIRefusal.badInput("The provider \(name) could not be found in the configuration") }
        return provider
    }

    private func authorisationURL(_ request: Request) async throws -> Response {
        guard let name = try request.query.single("thirdPartyId"), !name.isEmpty else {
            throw FDIRefusal.badInput("Please provide the thirdPartyId as a GET param")
        }
        guard let redirectURI = try request.query.single("redirectURIOnProviderDashboard"), !redirectURI.isEmpty else {
            throw FDIRefusal.badInput("Please provide the redirectURIOnProviderDashboard as a GET param")
        }
        let provider = try await provider(named: name)
        let verifier = SecureRandom.token()
        let challenge = try PKCE.challenge(for: verifier)
        let url: String
        if provider.mode == .test {
            url =
                feature.settings.base
                + URLQuery.path(
                    "/_/test-idp/\(provider.name)/authorize",
                    [
                        ("response_type", "code"), ("client_id", provider.clientId), ("redirect_uri", redirectURI),
                        ("nonce", nonce(for: verifier)), ("code_challenge", challenge), ("code_challenge_method", PKCE.method)
                    ])
        } else {
            let endpoints = try await feature.client.endpoints(for: provider, now: env.clock())
            url = feature.client.authorizationURL(
                provider, endpoints: endpoints, redirectURI: redirectURI, state: "", nonce: nonce(for: verifier),
                codeChallenge: challenge)
        }
        return SuperTokensFDI.status("OK", ["urlWithQueryParams": .string(url), "pkceCodeVerifier": .string(verifier)])
    }

    private func signInUp(_ request: Request) async throws -> Response {
        let body = try SuperTokensFDI.body(request)
        let name = try SuperTokensFDI.text(body, "thirdPartyId")
        if case .object(let tokens)? = body["oAuthTokens"] {
            return try await nativeSignIn(request, provider: name, tokens: tokens)
        }
        guard case .object(let info)? = body["redirectURIInfo"] else {
            throw FDIRefusal.badInput("Please provide one of redirectURIInfo or oAuthTokens in the request body")
        }
        let provider = try await provider(named: name)
        let redirectURI = try SuperTokensFDI.text(info, "redirectURIOnProviderDashboard")
        guard case .object(let query)? = info["redirectURIQueryParams"], let code = query["code"]?.stringValue, !code.isEmpty
        else {
            throw FDIRefusal.badInput("Please provide the code from the provider in redirectURIInfo.redirectURIQueryParams")
        }
        let verifier = try SuperTokensFDI.text(info, "pkceCodeVerifier")
        let providerSignIn = ProviderSignIn(env: env.accounts, via: SuperTokensFDI.via)
        let identity: ExternalIdentity
        do {
            identity = try await feature.identity(
                provider, code: code, redirectURI: redirectURI, codeVerifier: verifier, nonce: nonce(for: verifier),
                now: env.clock())
        } catch {
            env.logger.notice("FDI provider sign-in refused", metadata: ["provider": "\(name)", "error": "\(error)"])
            await providerSignIn.roundTripRefused(provider: name, reason: OAuthPages.reason(error), request: request)
            return SuperTokensFDI.status(
                "GENERAL_ERROR",
                ["message": .string("Gatehouse could not confirm your \(provider.label) sign-in. Please start again.")])
        }
        guard identity.email?.isEmpty == false else { return SuperTokensFDI.status("NO_EMAIL_GIVEN_BY_PROVIDER") }
        let signIn = try await providerSignIn.attempt(identity, allowCreate: feature.settings.allowSignUp, request: request)
        return try await answer(signIn, subject: identity.subject, provider: provider, request: request)
    }

    /// A native SDK's ID token (`oAuthTokens.id_token`), for Google or Apple: no raw nonce comes
    /// with it in the FDI, so a token that carries one is refused.
    private func nativeSignIn(_ request: Request, provider name: String, tokens: [String: JSONValue]) async throws -> Response {
        guard let provider = IDTokenSignIn.Provider(rawValue: name) else {
            throw FDIRefusal.badInput("Gatehouse checks ID tokens from google and apple only: use redirectURIInfo for \(name)")
        }
        guard let token = tokens["id_token"]?.stringValue, !token.isEmpty else {
            throw FDIRefusal.badInput("Please provide the id_token in oAuthTokens")
        }
        let config = ProviderConfiguration(name: name, type: .oidc, clientId: "")
        switch try await IDTokenSignIn(feature: feature, via: SuperTokensFDI.via).signIn(
            token, provider: provider, nonce: .unbound, name: nil, request: request)
        {
        case .signIn(let result, let outcome, let subject):
            return try await answer(
                ExternalSignIn(result: result, outcome: outcome), subject: subject, provider: config, request: request)
        case .refused:
            return SuperTokensFDI.status(
                "GENERAL_ERROR", ["message": .string("The \(config.label) sign-in could not be verified. Please try again.")])
        case .conflict(let message):
            return SuperTokensFDI.status("SIGN_IN_UP_NOT_ALLOWED", ["reason": .string(message)])
        case .notConfigured:
            throw FDIRefusal.badInput("\(name): no client id is configured for ID-token sign-in (--\(name)-audience)")
        }
    }

    /// The sign-in in the FDI's words: a session (or the second step owed) and the account, or why not.
    private func answer(
        _ signIn: ExternalSignIn, subject: String, provider: ProviderConfiguration, request: Request
    ) async throws -> Response {
        let created = signIn.outcome == .created
        let body: (User) -> Response = { user in
            SuperTokensFDI.status(
                "OK",
                [
                    "createdNewRecipeUser": .bool(created),
                    "user": SuperTokensUser(
                        user: user, recipe: "thirdparty",
                        thirdParty: .init(id: provider.name, userId: subject)
                    ).json
                ])
        }
        switch signIn.result {
        case .signedIn(let session):
            return try await fdi.sessions.opening(session, factors: [Self.factor], request: request, body: body(session.user))
        case .secondStep(let challenge):
            return try await fdi.sessions.owing(challenge, factor: Self.factor, request: request, body: body)
        case .refused(.provider(let error)):
            return SuperTokensFDI.status(
                "SIGN_IN_UP_NOT_ALLOWED", ["reason": .string(OAuthPages.message(error, provider: provider))])
        case .refused(let refusal):
            throw refusal.error
        }
    }

    /// Apple's form post (`response_mode=form_post`) sent on to the frontend's page named in the
    /// frontend's state (base64 JSON `{frontendRedirectURI}`), with the posted fields in its query:
    /// only to a SuperTokens frontend Gatehouse serves (`--supertokens-website-url`,
    /// `--supertokens-app-origin`), never to a page the state alone names.
    private func appleCallback(_ request: Request) async throws -> Response {
        let form = try request.form()
        guard let state = try form.single("state"), !state.isEmpty else {
            throw FDIRefusal.badInput("Please provide the state in the request body")
        }
        // The web SDK writes it with `btoa` (the standard alphabet); either alphabet is read.
        let urlSafe = state.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        guard let bytes = Base64URL.decode(urlSafe),
            case .object(let decoded)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)),
            let target = decoded["frontendRedirectURI"]?.stringValue
        else { throw FDIRefusal.badInput("state must be a base64 encoded JSON object with frontendRedirectURI") }
        guard env.configuration.isSuperTokensFrontendPage(target) else {
            throw FDIRefusal.badInput("frontendRedirectURI in state does not match the configured origin")
        }
        var fields: [(String, String)] = []
        for (name, value) in form { fields.append((name, value)) }
        return .redirect(to: CallbackURL.appending(fields, to: target))
    }

    /// The OIDC nonce for a round trip, bound to its PKCE verifier.
    private func nonce(for verifier: String) -> String { feature.hasher.hex("supertokens-fdi-nonce:" + verifier) }
}
