import Foundation

/// Whether a provider speaks OpenID Connect (id_token + discovery) or plain OAuth 2.0 (user info only).
public enum ProviderType: String, Sendable, Codable, CaseIterable {
    case oidc
    case oauth2
}

/// Whether a provider's buttons go to the real provider or to Gatehouse's built-in test page.
public enum ProviderMode: String, Sendable, Codable, CaseIterable {
    case live
    case test
}

/// One configured sign-in provider, as the admin API, the config file and the console give it.
/// Missing endpoints are filled from the preset of the same name (`ProviderPresets`) or, for OIDC,
/// from the issuer's discovery document.
public struct ProviderConfiguration: Sendable, Codable, Equatable {
    public var name: String
    public var type: ProviderType
    public var mode: ProviderMode
    public var displayName: String?
    public var issuer: String?
    public var authorizationURL: String?
    public var tokenURL: String?
    public var userInfoURL: String?
    public var jwksURL: String?
    public var clientId: String
    /// Plain text only in memory; stored sealed (`SecretBox`).
    public var clientSecret: String?
    public var scopes: [String]

    public init(
        name: String, type: ProviderType, mode: ProviderMode = .live, displayName: String? = nil,
        issuer: String? = nil, authorizationURL: String? = nil, tokenURL: String? = nil,
        userInfoURL: String? = nil, jwksURL: String? = nil, clientId: String, clientSecret: String? = nil,
        scopes: [String] = []
    ) {
        self.name = name
        self.type = type
        self.mode = mode
        self.displayName = displayName
        self.issuer = issuer
        self.authorizationURL = authorizationURL
        self.tokenURL = tokenURL
        self.userInfoURL = userInfoURL
        self.jwksURL = jwksURL
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.scopes = scopes
    }

    /// The label on buttons and the linked-accounts page.
    public var label: String { displayName ?? ProviderPresets.preset(named: name)?.displayName ?? name.capitalized }

    /// Every problem with this configuration, by field; empty when it can be used.
    public func problems() -> [String: String] {
        var problems: [String: String] = [:]
        if !Self.isValidName(name) { problems["name"] = "Use 1 to 32 characters: a-z, 0-9, - and _." }
        if clientId.isEmpty, mode == .live { problems["clientId"] = "A client id is required." }
        let urls: [(String, String?)] = [
            ("issuer", issuer), ("authorizationURL", authorizationURL), ("tokenURL", tokenURL),
            ("userInfoURL", userInfoURL), ("jwksURL", jwksURL)
        ]
        for (field, value) in urls {
            if let value, !(value.hasPrefix("https://") || value.hasPrefix("http://")) {
                problems[field] = "Use an http:// or https:// URL."
            }
        }
        if mode == .live {
            let withPreset = ProviderPresets.applying(to: self)
            switch type {
            case .oidc where withPreset.issuer == nil && withPreset.authorizationURL == nil:
                problems["issuer"] = "An OIDC provider needs an issuer (or explicit endpoints)."
            case .oauth2 where withPreset.authorizationURL == nil || withPreset.tokenURL == nil || withPreset.userInfoURL == nil:
                problems["authorizationURL"] = "An OAuth 2.0 provider needs authorization, token and user info URLs."
            default: break
            }
        }
        return problems
    }

    /// Provider names appear in URLs: lower-case letters, digits, `-` and `_`.
    public static func isValidName(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
