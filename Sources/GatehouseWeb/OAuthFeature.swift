import AuthCore
import Foundation
import OAuth
import Secrets
import Store

/// What the provider, test-provider, hosted-page and Apple handlers share. Built once when
/// `OAuthSettings` are given.
struct OAuthFeature: Sendable {
    let env: PageEnvironment
    let settings: OAuthSettings
    let registry: ProviderRegistry
    let client: ProviderClient
    /// Nil when the backend keeps no linked identities; the pages then say so.
    let externalAuths: (any ExternalAuthBackend)?
    let tokens: any AppTokenIssuer
    let hasher: KeyedHash

    /// How long a provider round trip may take.
    static let flowLifetime: TimeInterval = 600
    /// The cookie that binds a flow's state to the browser that started it.
    static let bindingCookie = "gh_oauth"

    /// Providers offered as buttons (test-mode ones only while the test provider is served).
    func buttonProviders() async -> [ProviderConfiguration] {
        let all = (try? await registry.all()) ?? []
        return all.filter { $0.mode == .live || settings.testProviderEnabled }
    }
}
