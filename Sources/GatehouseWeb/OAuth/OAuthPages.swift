import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth
import Secrets

/// `/auth/oauth/{provider}` (start) and `/auth/oauth/{provider}/callback`: sign in or link with a
/// provider. State is random, stored hashed, bound to this browser by the `gh_oauth` cookie and
/// consumed once; PKCE is S256 only; OIDC id_tokens are checked by `ProviderClient`.
struct OAuthPages: Sendable {
    let feature: OAuthFeature
    var env: PageEnvironment { feature.env }
    private var flows: OAuthFlows { OAuthFlows(env: env.accounts, hasher: feature.hasher) }
    private var providerSignIn: ProviderSignIn { ProviderSignIn(env: env.accounts, via: nil) }

    func register(on router: inout Router) {
        router.page(.get, "/auth/oauth/:provider", env, start)
        router.page(.get, "/auth/oauth/:provider/callback", env, callback)
    }

    private func start(_ visit: Visit) async throws -> Response {
        let name = try visit.parameters.require("provider")
        let linking = try visit.query("link") == "1"
        if linking {
            guard let signedIn = visit.signedIn else {
                return .redirect(to: URLQuery.path("/auth/sign-in", [("redirect", "/account/linked")]))
            }
            // Not sent to the provider for a link the callback would refuse (`ProviderLinks.link`).
            do {
                try ProviderLinks(env: env.accounts, via: nil).checkMayLink(signedIn)
            } catch let refusal as FreshSignInRequired {
                return refuse(refusal)
            }
        }
        // Checked before anyone is sent to the provider: a flow the backend cannot finish must not start.
        guard feature.backendSignsInWithProviders else {
            return refuse(501, "Not supported", AuthError.notSupported(.externalSignIn).pageMessage)
        }
        guard let provider = try await feature.registry.provider(named: name),
            provider.mode == .live || feature.settings.testProviderEnabled
        else {
            return refuse(404, "Unknown provider", "No sign-in provider called “\(name)” is configured.")
        }
        var appRequest: AppSignInRequest?
        if !linking, AppSignInRequest.isAppRequest(visit.request.query) {
            do { appRequest = try await AppSignInRequest.parse(visit.request.query, registry: feature.registry) } catch let
                refusal
                as AppSignInRequest.Refusal
            {
                return refuse(400, "This sign-in request was refused", refusal.message)
            }
        }
        let now = env.clock()
        let binding = visit.request.cookies[OAuthFeature.bindingCookie].flatMap { $0.isEmpty ? nil : $0 } ?? SecureRandom.token()
        let state = SecureRandom.token()
        let nonce = SecureRandom.token()
        let verifier = SecureRandom.token()
        try await flows.begin(
            state: state, browserBinding: binding, provider: provider.name, purpose: linking ? .link : .signIn,
            userID: linking ? visit.user?.id : nil, codeVerifier: verifier, nonce: nonce, appRequest: appRequest?.json)
        let redirectURI = feature.settings.callbackURL(provider: provider.name)
        let challenge = try PKCE.challenge(for: verifier)
        let location: String
        if provider.mode == .test {
            location = URLQuery.path(
                "/_/test-idp/\(provider.name)/authorize",
                [
                    ("response_type", "code"), ("client_id", provider.clientId), ("redirect_uri", redirectURI), ("state", state),
                    ("nonce", nonce), ("code_challenge", challenge), ("code_challenge_method", PKCE.method)
                ])
        } else {
            do {
                let endpoints = try await feature.client.endpoints(for: provider, now: now)
                location = feature.client.authorizationURL(
                    provider, endpoints: endpoints, redirectURI: redirectURI,
                    state: state, nonce: nonce, codeChallenge: challenge)
            } catch {
                env.logger.error("provider discovery failed", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
                return refuse(
                    502, "The provider could not be reached",
                    "Gatehouse could not reach \(provider.label). Try again in a moment.")
            }
        }
        var response = Response.redirect(to: location)
        response.setCookie(
            Cookie(
                name: OAuthFeature.bindingCookie, value: binding, path: "/auth/oauth",
                maxAge: Int(OAuthFlows.lifetime), httpOnly: true,
                secure: env.configuration.usesTLS, sameSite: .lax))
        return response
    }

    private func callback(_ visit: Visit) async throws -> Response {
        let name = try visit.parameters.require("provider")
        let request = visit.request
        guard let provider = try await feature.registry.provider(named: name) else {
            await providerSignIn.roundTripRefused(provider: name, reason: "unknown_provider", request: request)
            return refuse(404, "Unknown provider", "No sign-in provider called “\(name)” is configured.")
        }
        guard let state = try visit.query("state"), !state.isEmpty else {
            return refuse(400, "Sign-in failed", OAuthFlowCheck.Refusal.unknownState.message)
        }
        let now = env.clock()
        let flow = try await flows.finish(state: state)
        let binding = request.cookies[OAuthFeature.bindingCookie].map(flows.browserHash)
        let checked: ProviderFlow
        switch OAuthFlowCheck.evaluate(
            flow, provider: provider.name, browserHash: binding, signedIn: visit.user?.id, now: flows.now(of: flow))
        {
        case .success(let flow): checked = flow
        case .failure(let refusal):
            await providerSignIn.roundTripRefused(provider: name, reason: refusal.reason, request: request)
            return refuse(400, "Sign-in failed", refusal.message)
        }
        if let error = try visit.query("error") {
            await providerSignIn.roundTripRefused(provider: name, reason: "provider_error:\(error.prefix(64))", request: request)
            return refuse(400, "Sign-in cancelled", "\(provider.label) did not let you sign in (\(error.prefix(64))).")
        }
        guard let code = try visit.query("code"), !code.isEmpty else {
            return refuse(400, "Sign-in failed", "\(provider.label) sent no authorization code.")
        }
        let identity: ExternalIdentity
        do {
            identity = try await exchange(provider, code: code, flow: checked, now: now)
        } catch {
            env.logger.warning("provider sign-in refused", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
            await providerSignIn.roundTripRefused(provider: name, reason: Self.reason(error), request: request)
            return refuse(
                400, "Sign-in failed",
                "Gatehouse could not confirm your \(provider.label) sign-in. Start again from the sign-in page.")
        }
        guard feature.backendSignsInWithProviders else {
            return refuse(501, "Not supported", AuthError.notSupported(.externalSignIn).pageMessage)
        }
        return checked.purpose == .link
            ? try await link(identity, visit: visit, provider: provider)
            : try await signIn(identity, visit: visit, provider: provider, app: AppSignInRequest.fromJSON(checked.appRequest))
    }

    private func exchange(_ provider: ProviderConfiguration, code: String, flow: ProviderFlow, now: Date) async throws
        -> ExternalIdentity
    {
        try await feature.identity(
            provider, code: code, redirectURI: feature.settings.callbackURL(provider: provider.name),
            codeVerifier: flow.codeVerifier, nonce: flow.nonce, now: now)
    }

    private func signIn(
        _ identity: ExternalIdentity, visit: Visit, provider: ProviderConfiguration, app: AppSignInRequest?
    ) async throws -> Response {
        let request = visit.request
        let session: AuthSession
        do {
            switch try await providerSignIn.attempt(identity, allowCreate: feature.settings.allowSignUp, request: request).result
            {
            case .signedIn(let signedIn): session = signedIn
            case .secondStep(let challenge):
                // The provider vouched for the person; the account asks for its second step. An app
                // sign-in then continues at `/auth/app/return`, which hands the app its code.
                guard let app else {
                    return SecondStep.redirect(challenge, continueTo: "/account", secure: env.configuration.usesTLS)
                }
                var response = SecondStep.redirect(challenge, continueTo: AppFlow.returnPath, secure: env.configuration.usesTLS)
                feature.appFlow.remember(app, in: &response, now: env.clock(), secure: env.configuration.usesTLS)
                return response
            case .refused(.provider(let error)):
                return refuse(409, "Sign-in with \(provider.label) was refused", Self.message(error, provider: provider))
            case .refused(let refusal):
                throw refusal.error
            }
        } catch AuthError.invalidCredentials {
            return refuse(403, "Sign-in refused", AuthError.invalidCredentials.pageMessage)
        }
        let user = session.user
        var response: Response
        if let app {
            response = try await HostedSignIn(feature: feature).redirect(for: user, request: app, httpRequest: request)
            AppFlow.forget(in: &response, secure: env.configuration.usesTLS)
        } else {
            response = .redirect(to: "/account")
        }
        try await env.sessions.start(session, replacing: visit.signedIn, request: request, response: &response)
        env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
        return response
    }

    private func link(
        _ identity: ExternalIdentity, visit: Visit, provider: ProviderConfiguration
    ) async throws -> Response {
        guard let signedIn = visit.signedIn else { return .redirect(to: "/auth/sign-in") }
        let links = ProviderLinks(env: env.accounts, via: nil)
        do {
            if let error = try await links.link(identity, to: signedIn, request: visit.request) {
                return refuse(409, "Linking \(provider.label) was refused", Self.message(error, provider: provider))
            }
        } catch let refusal as FreshSignInRequired {
            return refuse(refusal)
        }
        return .redirect(to: "/account/linked?notice=linked")
    }

    private func refuse(_ status: Int, _ heading: String, _ message: String) -> Response {
        env.renderer.errorPage(status: status, heading: heading, message: message)
    }

    /// A link asked for, or finished, in a session too old to add a way in (`RecentSignIn`).
    private func refuse(_ refusal: FreshSignInRequired) -> Response {
        refuse(refusal.status, "Sign in again first", refusal.message)
    }

    static func message(_ error: ExternalAuthError, provider: ProviderConfiguration) -> String {
        switch error {
        case .alreadyLinked:
            "This \(provider.label) account is already linked to an account, or yours already has a \(provider.label) account linked."
        case .emailBelongsToAnotherAccount:
            "An account with this email already exists. Sign in with your password, then link \(provider.label) from your account page."
        case .lastSignInMethod: "This is your only way to sign in. Set a password or link another provider first."
        case .signUpClosed: "There is no account for this \(provider.label) identity and new accounts cannot be created this way."
        case .notLinked: "\(provider.label) is not linked to your account."
        }
    }

    /// A short audit reason for a failed exchange (never the token itself).
    static func reason(_ error: any Error) -> String {
        switch error {
        case OAuthError.idToken(let tokenError): "id_token:\(tokenError)"
        case OAuthError.providerHTTP(_, let status): "token_endpoint_status:\(status)"
        default: "exchange_failed"
        }
    }
}
