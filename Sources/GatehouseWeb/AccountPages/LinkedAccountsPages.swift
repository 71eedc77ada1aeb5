import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth

/// `/account/linked` with the configured providers (replacing `AccountPages`' empty list) and
/// `POST /account/linked/{provider}/unlink`, refused when it would leave no way to sign in.
struct LinkedAccountsPages: Sendable {
    let feature: OAuthFeature
    var env: PageEnvironment { feature.env }

    func register(on router: inout Router) {
        router.page(.get, "/account/linked", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst() }
            return try await render(visit, signedIn, error: nil)
        }
        router.page(.post, "/account/linked/:provider/unlink", env) { visit in
            guard let signedIn = visit.signedIn else { return signInFirst() }
            let provider = try visit.parameters.require("provider")
            guard feature.backendSignsInWithProviders else { return try await render(visit, signedIn, error: nil) }
            do {
                try await ProviderLinks(env: env.accounts, via: nil).unlink(provider, of: signedIn, request: visit.request)
            } catch let error as ExternalAuthError {
                let label = try await feature.registry.provider(named: provider)?.label ?? provider
                let config = ProviderConfiguration(name: provider, type: .oidc, displayName: label, clientId: "")
                return try await render(visit, signedIn, error: OAuthPages.message(error, provider: config), status: 409)
            }
            return .redirect(to: "/account/linked?notice=unlinked")
        }
    }

    private func signInFirst() -> Response {
        .redirect(to: URLQuery.path("/auth/sign-in", [("redirect", "/account/linked")]))
    }

    private func render(_ visit: Visit, _ signedIn: SignedIn, error: String?, status: Int = 200) async throws -> Response {
        let links = feature.backendSignsInWithProviders ? try await ProviderLinks(env: env.accounts, via: nil).own(signedIn) : []
        let configured = await feature.buttonProviders()
        var rows: [[String: Any]] = configured.map { provider in
            let link = links.first { $0.provider == provider.name }
            return [
                "name": provider.name, "displayName": provider.label + (provider.mode == .test ? " (test)" : ""),
                "linked": link != nil, "providerId": link?.providerID ?? "", "testMode": provider.mode == .test
            ]
        }
        // Links to providers no longer configured still show, so they can be removed.
        for link in links where !configured.contains(where: { $0.name == link.provider }) {
            rows.append(["name": link.provider, "displayName": link.provider, "linked": true, "providerId": link.providerID])
        }
        var page: [String: Any] = [
            "providers": rows, "supported": feature.backendSignsInWithProviders,
            // The impersonation note explains missing Link/Unlink buttons: only where a row would have one.
            "listsProviders": feature.backendSignsInWithProviders && !rows.isEmpty
        ]
        if ProviderLinks(env: env.accounts, via: nil).needsFreshSignIn(signedIn) {
            page["signInAgain"] = SecurityPages.signInAgain(.linkProvider, signedIn, page: "/account/linked")
        }
        if let error { page["errors"] = ["form": error] }
        return env.renderer.page(.linked, visit.context(title: "Linked accounts", page), status: status)
    }
}
