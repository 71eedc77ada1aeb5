import Foundation
import OAuth
import Secrets
import Store

// The shapes a provider and an app are configured in — the admin API's bodies
// (`POST /_/api/providers`, `/_/api/apps`), the console's forms and the `--oauth-config` file —
// with the checks every one of them goes through.

/// `POST /_/api/providers` body: the fields, plus `mode`, `displayName` and `jwksURL`.
public struct ProviderBody: Decodable {
    var name: String
    var type: ProviderType
    var mode: ProviderMode?
    var displayName: String?
    var issuer: String?
    var authorizationURL: String?
    var tokenURL: String?
    var userInfoURL: String?
    var jwksURL: String?
    var clientId: String
    var clientSecret: String?
    var scopes: [String]?

    public var configuration: ProviderConfiguration {
        ProviderConfiguration(
            name: name, type: type, mode: mode ?? .live, displayName: displayName, issuer: issuer,
            authorizationURL: authorizationURL, tokenURL: tokenURL, userInfoURL: userInfoURL, jwksURL: jwksURL,
            clientId: clientId, clientSecret: clientSecret, scopes: scopes ?? [])
    }
}

public struct AppBody: Decodable {
    public var id: String?
    public var name: String
    var callbackURLs: [String]
    var legacyCallback: Bool?
    /// Branding on the hosted page (`AppBranding`); each optional, blank means none.
    var logoURL: String?
    var accentColor: String?
    var termsURL: String?
    var privacyURL: String?

    public init(
        id: String?, name: String, callbackURLs: [String], legacyCallback: Bool?, logoURL: String? = nil,
        accentColor: String? = nil, termsURL: String? = nil, privacyURL: String? = nil
    ) {
        self.id = id
        self.name = name
        self.callbackURLs = callbackURLs
        self.legacyCallback = legacyCallback
        self.logoURL = logoURL
        self.accentColor = accentColor
        self.termsURL = termsURL
        self.privacyURL = privacyURL
    }
}

extension AppBody {
    /// The id to store: the one given, else a fresh random one.
    public var resolvedID: String { id ?? String(SecureRandom.userID()) }

    /// Every problem with this registration, by field; empty when it can be saved. The console's
    /// form checks through here too.
    public func problems(id: String) -> [String: String] {
        var problems: [String: String] = [:]
        if !ProviderConfiguration.isValidName(id) { problems["id"] = "Use 1 to 32 characters: a-z, 0-9, - and _." }
        if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 100 { problems["name"] = "Use 1 to 100 characters." }
        if callbackURLs.isEmpty { problems["callbackURLs"] = "Register at least one callback URL." }
        for url in callbackURLs {
            if let problem = CallbackURL.registrationProblem(url) { problems["callbackURLs"] = "\(url): \(problem)" }
        }
        for (field, value) in [("logoURL", logoURL), ("termsURL", termsURL), ("privacyURL", privacyURL)] {
            if let given = AppBranding.given(value), let problem = AppBranding.linkProblem(given) { problems[field] = problem }
        }
        if let color = AppBranding.given(accentColor), AppBranding.normalizedColor(color) == nil {
            problems["accentColor"] = "Use a colour like #0f766e."
        }
        return problems
    }

    public func record(id: String, at now: Date) -> RegisteredApp {
        RegisteredApp(
            id: id, name: name.trimmingCharacters(in: .whitespaces), callbackURLs: callbackURLs,
            legacyCallback: legacyCallback ?? false, logoURL: AppBranding.given(logoURL),
            accentColor: AppBranding.given(accentColor).flatMap(AppBranding.normalizedColor),
            termsURL: AppBranding.given(termsURL), privacyURL: AppBranding.given(privacyURL), createdAt: now, updatedAt: now)
    }
}
