import AuthCore
import Foundation
import OAuth

/// A provider's code turned into who signed in, whichever front-end's round trip brought it (the
/// provider callback page, SuperTokens' FDI `signinup`), and where the built-in test provider may
/// send its codes.
extension OAuthFeature {
    /// The identity `code` stands for: exchanged at the provider with the round trip's
    /// `redirectURI` and PKCE verifier, its id_token checked (signature, issuer, audience, expiry,
    /// `nonce`). The built-in test provider is an OIDC provider served by Gatehouse itself:
    /// discovery, token exchange over HTTP and id_token checks exactly as for a live one.
    func identity(
        _ provider: ProviderConfiguration, code: String, redirectURI: String, codeVerifier: String, nonce: String,
        now: Date
    ) async throws -> ExternalIdentity {
        var config = provider
        let endpoints: ProviderEndpoints
        if provider.mode == .test {
            guard settings.testProviderEnabled else { throw OAuthError.badConfiguration("test provider is off") }
            config.type = .oidc
            endpoints = try await client.endpoints(discoveredFrom: testIssuer(provider: provider.name), now: now)
        } else {
            endpoints = try await client.endpoints(for: provider, now: now)
        }
        var identity = try await client.identity(
            config, endpoints: endpoints, code: code, redirectURI: redirectURI, codeVerifier: codeVerifier, nonce: nonce,
            now: now)
        identity.fromTestProvider = provider.mode == .test
        return identity
    }

    /// Whether the test provider may send a code to `redirectURI`, as a provider's dashboard lists
    /// them: Gatehouse's own callback, the Rownd Hub's (`{hub}/callback`), and pages of the
    /// SuperTokens frontends Gatehouse serves (`--supertokens-website-url`,
    /// `--supertokens-app-origin`), which finish the round trip through the FDI's `signinup`.
    /// Nowhere else: its codes are not for any site that asks.
    func testProviderRedirects(to redirectURI: String, provider: String) -> Bool {
        redirectURI == settings.callbackURL(provider: provider) || redirectURI == rowndHubCallbackURL
            || env.configuration.isSuperTokensFrontendPage(redirectURI)
    }

    /// Where a provider round trip started in the Rownd Hub comes back to.
    var rowndHubCallbackURL: String { settings.base + env.configuration.rowndHubPath + "/callback" }
}
