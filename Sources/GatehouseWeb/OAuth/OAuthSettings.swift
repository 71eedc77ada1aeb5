import Foundation
import OAuth
import Secrets

/// Settings for sign-in providers, the built-in test provider, the hosted page for apps and
/// Sign in with Apple. Passing them to `Application` switches these features on.
public struct OAuthSettings: Sendable {
    /// Where people reach Gatehouse (e.g. `http://127.0.0.1:8080`); callbacks are built from it.
    public var baseURL: @Sendable () -> String
    /// Seals provider client secrets in the database.
    public var secretBox: SecretBox
    /// Serve `/_/test-idp/…` (on by default only while bound to loopback).
    public var testProviderEnabled: Bool
    /// Whether a first provider sign-in may create an account.
    public var allowSignUp: Bool
    /// Outgoing HTTP to providers and JWKS URLs.
    public var http: HTTPFetch
    /// Sign in with Apple (native): Apple's JWKS by default, and the audiences (bundle/service ids) accepted.
    public var appleJWKSURL: String
    public var appleAudiences: Set<String>
    /// Google ID tokens from native SDKs and One Tap (`POST /api/auth/id-token`): Google's JWKS by
    /// default, and the audiences (OAuth client ids) accepted besides a configured `google` provider's.
    public var googleJWKSURL: String
    public var googleAudiences: Set<String>
    /// Lifetime of the one-time code the hosted page hands to an app (single use either way).
    public var appCodeLifetime: TimeInterval
    /// Lifetime of access tokens issued by the code exchange.
    public var accessTokenLifetime: TimeInterval

    public init(
        baseURL: @escaping @Sendable () -> String, secretBox: SecretBox,
        testProviderEnabled: Bool = true, allowSignUp: Bool = true, http: HTTPFetch = .live,
        appleJWKSURL: String = "https://appleid.apple.com/auth/keys", appleAudiences: Set<String> = [],
        googleJWKSURL: String = "https://www.googleapis.com/oauth2/v3/certs", googleAudiences: Set<String> = [],
        appCodeLifetime: TimeInterval = 60, accessTokenLifetime: TimeInterval = 3600
    ) {
        self.baseURL = baseURL
        self.secretBox = secretBox
        self.testProviderEnabled = testProviderEnabled
        self.allowSignUp = allowSignUp
        self.http = http
        self.appleJWKSURL = appleJWKSURL
        self.appleAudiences = appleAudiences
        self.googleJWKSURL = googleJWKSURL
        self.googleAudiences = googleAudiences
        self.appCodeLifetime = appCodeLifetime
        self.accessTokenLifetime = accessTokenLifetime
    }

    /// `baseURL` without a trailing slash.
    var base: String {
        var url = baseURL()
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    func callbackURL(provider: String) -> String { "\(base)/auth/oauth/\(provider)/callback" }
}
