import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth
import Secrets

/// `/_/test-idp/{provider}/authorize`: a fake provider's account chooser, like the Firebase
/// emulator's. Pick a fixed identity, an added one, or generate one; the page then redirects to
/// Gatehouse's own callback (or a SuperTokens frontend's, `testProviderRedirects`) with a real
/// code that only the flow's PKCE verifier can spend, at
/// `POST /_/test-idp/{provider}/token` (`TestIdentityProviderAPI`).
/// Served on loopback by default, elsewhere only with `--test-provider`.
struct TestIdentityProviderPages: Sendable {
    let feature: OAuthFeature
    var env: PageEnvironment { feature.env }
    private var store: TestIdentityProvider { TestIdentityProvider(env: env.accounts, hasher: feature.hasher) }

    func register(on router: inout Router) {
        router.page(.get, "/_/test-idp/:provider/authorize", env) { visit in
            let (provider, params) = try await authorizationRequest(visit, source: visit.request.query)
            guard let provider, let params else { return notServed(visit) }
            return try await render(visit, provider: provider, params: params, errors: FormErrors())
        }
        router.page(.post, "/_/test-idp/:provider/authorize", env, choose)
    }

    /// The checked authorization request: provider in test mode, a callback it may send codes to, S256.
    private func authorizationRequest(_ visit: Visit, source: Parameters) async throws
        -> (ProviderConfiguration?, [(String, String)]?)
    {
        guard feature.settings.testProviderEnabled,
            let provider = try await feature.registry.provider(named: try visit.parameters.require("provider")),
            provider.mode == .test
        else { return (nil, nil) }
        let keys = ["response_type", "client_id", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method"]
        var params: [(String, String)] = []
        for key in keys {
            guard let value = try source.single(key), !value.isEmpty else { return (provider, nil) }
            params.append((key, value))
        }
        let values = Dictionary(params, uniquingKeysWith: { first, _ in first })
        guard values["response_type"] == "code", values["code_challenge_method"] == PKCE.method,
            values["client_id"] == provider.clientId,
            feature.testProviderRedirects(to: values["redirect_uri"] ?? "", provider: provider.name),
            PKCE.isValidChallenge(values["code_challenge"] ?? "")
        else { return (provider, nil) }
        return (provider, params)
    }

    private func notServed(_ visit: Visit) -> Response {
        env.renderer.errorPage(
            status: 404, heading: "Test provider not available",
            message:
                "This provider is not in test mode, the test provider is switched off, or the request is not a valid S256 authorization request."
        )
    }

    private func render(
        _ visit: Visit, provider: ProviderConfiguration, params: [(String, String)], errors: FormErrors,
        status: Int = 200
    ) async throws -> Response {
        let accounts = try await store.identities(provider: provider.name)
        return env.renderer.page(
            .testIdentityProvider,
            visit.context(
                title: "\(provider.label) (test)",
                [
                    "provider": ["name": provider.name, "label": provider.label],
                    "params": params.map { ["name": $0.0, "value": $0.1] },
                    "fixed": TestIdentityProvider.fixedIdentities.enumerated().map { index, person in
                        ["index": index, "name": person.name, "email": person.email, "verified": person.verified] as [String: Any]
                    },
                    "accounts": accounts.map {
                        [
                            "id": $0.id, "name": $0.name ?? "", "email": $0.email, "verified": $0.emailVerified,
                            "subject": $0.subject
                        ] as [String: Any]
                    }
                ].merging(errors.context) { $1 }), status: status)
    }

    private func choose(_ visit: Visit) async throws -> Response {
        let (provider, checked) = try await authorizationRequest(visit, source: visit.form)
        guard let provider, let params = checked else { return notServed(visit) }
        let values = Dictionary(params, uniquingKeysWith: { first, _ in first })
        let identity: TestIdentity
        switch try visit.form.single("action") ?? "" {
        case "deny":
            return .redirect(
                to: CallbackURL.appending(
                    [("error", "access_denied"), ("state", values["state"] ?? "")],
                    to: values["redirect_uri"] ?? "/"))
        case let action where action.hasPrefix("fixed-"):
            guard let index = Int(action.dropFirst(6)), TestIdentityProvider.fixedIdentities.indices.contains(index) else {
                return notServed(visit)
            }
            let person = TestIdentityProvider.fixedIdentities[index]
            identity = try await store.save(
                provider: provider.name, subject: person.subject, email: person.email,
                emailVerified: person.verified, name: person.name)
        case let action where action.hasPrefix("account-"):
            guard let id = Int64(action.dropFirst(8)),
                let found = try await store.identity(id: id, provider: provider.name)
            else { return notServed(visit) }
            identity = found
        case "generate":
            let suffix = SecureRandom.digits(6)
            identity = try await store.save(
                provider: provider.name, subject: "gen-\(SecureRandom.token().prefix(12))",
                email: "user\(suffix)@test.gatehouse.local",
                emailVerified: true, name: "Test User \(suffix)")
        case "add":
            let email = try visit.field("email").trimmingCharacters(in: .whitespaces)
            let name = try visit.field("name").trimmingCharacters(in: .whitespaces)
            var errors = FormErrors()
            if !EmailAddress.isPlausible(email) { errors.add("email", "Enter a valid email address.") }
            guard errors.isEmpty else {
                return try await render(visit, provider: provider, params: params, errors: errors, status: 422)
            }
            let subject = try visit.field("subject").trimmingCharacters(in: .whitespaces)
            identity = try await store.save(
                provider: provider.name,
                subject: subject.isEmpty ? "sub-" + String(SecureRandom.token().prefix(12)) : String(subject.prefix(128)),
                email: email, emailVerified: try visit.field("email_verified") == "on", name: name.isEmpty ? nil : name)
        default:
            return notServed(visit)
        }
        let code = try await store.issueCode(
            provider: provider.name, identity: identity, redirectURI: values["redirect_uri"] ?? "",
            codeChallenge: values["code_challenge"] ?? "", nonce: values["nonce"] ?? "")
        let callback = CallbackURL.appending(
            [("code", code), ("state", values["state"] ?? "")], to: values["redirect_uri"] ?? "/")
        // For an app's sign-in the callback ends in a redirect to the app, and a SuperTokens
        // frontend's callback is the app's own page. Browsers apply this page's `form-action 'self'`
        // to every redirect after the post, so leave through a plain navigation.
        let ownCallback = values["redirect_uri"] == feature.settings.callbackURL(provider: provider.name)
        let flow = try await OAuthFlows(env: env.accounts, hasher: feature.hasher).pending(state: values["state"] ?? "")
        if flow?.appRequest != nil || !ownCallback {
            return env.renderer.page(.continuePage, visit.context(title: "Returning to the app", ["url": callback]))
        }
        return .redirect(to: callback)
    }
}
