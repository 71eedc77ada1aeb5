import Foundation
import OAuth

/// The ways in the Rownd Hub offers, and so what `app-config` tells the SDK (one answer for both):
/// email (a code, and a magic link), Google and Apple where Gatehouse can check the ID token the
/// SDK's native sign-in gets (`--google-audience`, `--apple-audience`, or a live provider of that
/// name: the Hub asks the SDK with `trigger_sign_in_with_google`/`_apple`, and the SDK sends the
/// token to the FDI's `signinup`), and each test-mode provider while the built-in test provider is
/// served (a round trip in the web view, through the FDI's `authorisationurl` and `signinup`).
struct RowndHubWaysIn: Sendable {
    /// A provider the SDK signs in with natively, and the client ids it configures Google's SDK with.
    struct Native: Sendable, Equatable {
        /// The web (server) client id: the live provider's, else the first audience.
        var clientID: String
        /// The iOS client id: the first other audience, else the same.
        var iosClientID: String
    }

    /// A provider the Hub signs in with in its web view.
    struct RoundTrip: Sendable, Equatable {
        var name: String
        var label: String
    }

    var emailCode = false
    var magicLink = false
    var google: Native?
    var apple: Native?
    var roundTrips: [RoundTrip] = []

    /// Whether the Hub shows an email sign-in.
    var email: Bool { emailCode || magicLink }
    /// Whether the Hub shows a Google button (native, or the test provider named `google`).
    var showsGoogle: Bool { google != nil || roundTrips.contains { $0.name == "google" } }
    /// Whether the Hub shows an Apple button.
    var showsApple: Bool { apple != nil || roundTrips.contains { $0.name == "apple" } }

    /// What this server offers now (the providers are the console's, so read per request).
    init(fdi: SuperTokensFDI) async {
        let env = fdi.env
        let methods = env.accounts.signInMethods
        emailCode = methods.contains(.emailCode) && env.capabilities.contains(.emailOTP)
        magicLink = methods.contains(.magicLink) && env.capabilities.contains(.magicLink)
        guard let feature = fdi.oauth, feature.backendSignsInWithProviders else { return }
        google = await Self.native(.google, feature)
        apple = await Self.native(.apple, feature)
        roundTrips = await feature.buttonProviders().filter { $0.mode == .test }.map { RoundTrip(name: $0.name, label: $0.label) }
    }

    /// The client ids for a provider whose ID tokens Gatehouse accepts; nil when it accepts none.
    private static func native(_ provider: IDTokenSignIn.Provider, _ feature: OAuthFeature) async -> Native? {
        let audiences = await IDTokenSignIn(feature: feature, via: SuperTokensFDI.via).audiences(provider).sorted()
        guard let first = audiences.first else { return nil }
        let live = try? await feature.registry.provider(named: provider.rawValue)
        let web = live.flatMap { $0.mode == .live && !$0.clientId.isEmpty ? $0.clientId : nil } ?? first
        return Native(clientID: web, iosClientID: audiences.first { $0 != web } ?? web)
    }
}
