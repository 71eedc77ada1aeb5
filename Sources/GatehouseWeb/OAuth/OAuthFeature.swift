import Accounts
import AuthCore
import Foundation
import OAuth
import Secrets

/// What the provider, test-provider, hosted-page and Apple handlers share. Built once when
/// `OAuthSettings` are given; a class, so the handlers share the one instance instead of copying
/// (and retaining) each of its many fields on every request.
final class OAuthFeature: Sendable {
    let env: PageEnvironment
    let settings: OAuthSettings
    let registry: ProviderRegistry
    let client: ProviderClient
    /// Tokens for apps (the hosted page's legacy callback; the code exchange is the InsForge API's).
    let tokens: InsForgeTokens
    let hasher: KeyedHash
    /// Signs the test provider's id_tokens and access tokens; its key lives in the `secrets` table.
    let testSigner: ES256Signer

    init(
        env: PageEnvironment, settings: OAuthSettings, registry: ProviderRegistry, client: ProviderClient,
        tokens: InsForgeTokens, hasher: KeyedHash, testSigner: ES256Signer
    ) {
        self.env = env
        self.settings = settings
        self.registry = registry
        self.client = client
        self.tokens = tokens
        self.hasher = hasher
        self.testSigner = testSigner
    }

    /// The app sign-in carried through Gatehouse's pages (`gh_app`).
    var appFlow: AppFlow { AppFlow(hasher: hasher) }

    /// The cookie that binds a flow's state to the browser that started it.
    static let bindingCookie = "gh_oauth"

    /// The secrets-table entry holding the test provider's P-256 private key (32 raw bytes).
    static let testSigningKeyName = "test-idp-es256"

    /// The test provider's issuer for one provider name: `BASE/_/test-idp/NAME`.
    func testIssuer(provider: String) -> String { "\(settings.base)/_/test-idp/\(provider)" }

    /// Whether the backend can take a provider's identity (`Capability.externalSignIn`): when it
    /// cannot, no page offers a provider button and `/_/providers` says why.
    var backendSignsInWithProviders: Bool { env.capabilities.contains(.externalSignIn) }

    /// Providers offered as buttons (test-mode ones only while the test provider is served); none
    /// when the backend cannot sign in with them, so nobody starts a flow that cannot finish.
    func buttonProviders() async -> [ProviderConfiguration] {
        guard backendSignsInWithProviders else { return [] }
        let all = (try? await registry.all()) ?? []
        return all.filter { $0.mode == .live || settings.testProviderEnabled }
    }
}
