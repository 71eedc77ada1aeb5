/// Known providers' endpoints, so configuring one needs only its name, client id and secret.
/// OIDC presets name the issuer (endpoints come from discovery); OAuth 2.0 presets name endpoints.
public struct ProviderPreset: Sendable {
    public var displayName: String
    public var type: ProviderType
    public var issuer: String?
    public var authorizationURL: String?
    public var tokenURL: String?
    public var userInfoURL: String?
    public var jwksURL: String?
    public var scopes: [String]
}

public enum ProviderPresets {
    public static let all: [String: ProviderPreset] = [
        "google": .init(
            displayName: "Google", type: .oidc, issuer: "https://accounts.google.com",
            scopes: ["openid", "email", "profile"]),
        "microsoft": .init(
            displayName: "Microsoft", type: .oauth2,
            authorizationURL: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
            tokenURL: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
            userInfoURL: "https://graph.microsoft.com/oidc/userinfo", scopes: ["openid", "email", "profile"]),
        "apple": .init(
            displayName: "Apple", type: .oidc, issuer: "https://appleid.apple.com",
            authorizationURL: "https://appleid.apple.com/auth/authorize", tokenURL: "https://appleid.apple.com/auth/token",
            jwksURL: "https://appleid.apple.com/auth/keys", scopes: ["openid", "email", "name"]),
        "github": .init(
            displayName: "GitHub", type: .oauth2, authorizationURL: "https://github.com/login/oauth/authorize",
            tokenURL: "https://github.com/login/oauth/access_token", userInfoURL: "https://api.github.com/user",
            scopes: ["read:user", "user:email"]),
        "discord": .init(
            displayName: "Discord", type: .oauth2, authorizationURL: "https://discord.com/oauth2/authorize",
            tokenURL: "https://discord.com/api/oauth2/token", userInfoURL: "https://discord.com/api/users/@me",
            scopes: ["identify", "email"]),
        "linkedin": .init(
            displayName: "LinkedIn", type: .oidc, issuer: "https://www.linkedin.com/oauth",
            scopes: ["openid", "email", "profile"]),
        "facebook": .init(
            displayName: "Facebook", type: .oauth2, authorizationURL: "https://www.facebook.com/v19.0/dialog/oauth",
            tokenURL: "https://graph.facebook.com/v19.0/oauth/access_token",
            userInfoURL: "https://graph.facebook.com/me?fields=id,name,email,picture", scopes: ["email", "public_profile"]),
        "instagram": .init(
            displayName: "Instagram", type: .oauth2, authorizationURL: "https://api.instagram.com/oauth/authorize",
            tokenURL: "https://api.instagram.com/oauth/access_token",
            userInfoURL: "https://graph.instagram.com/me?fields=id,username", scopes: ["user_profile"]),
        "tiktok": .init(
            displayName: "TikTok", type: .oauth2, authorizationURL: "https://www.tiktok.com/v2/auth/authorize/",
            tokenURL: "https://open.tiktokapis.com/v2/oauth/token/",
            userInfoURL: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,display_name,avatar_url",
            scopes: ["user.info.basic"]),
        "x": .init(
            displayName: "X", type: .oauth2, authorizationURL: "https://x.com/i/oauth2/authorize",
            tokenURL: "https://api.x.com/2/oauth2/token", userInfoURL: "https://api.x.com/2/users/me",
            scopes: ["users.read", "tweet.read"]),
        "spotify": .init(
            displayName: "Spotify", type: .oauth2, authorizationURL: "https://accounts.spotify.com/authorize",
            tokenURL: "https://accounts.spotify.com/api/token", userInfoURL: "https://api.spotify.com/v1/me",
            scopes: ["user-read-email"])
    ]

    public static func preset(named name: String) -> ProviderPreset? { all[name] }

    /// `configuration` with every field it leaves empty taken from the preset of the same name.
    public static func applying(to configuration: ProviderConfiguration) -> ProviderConfiguration {
        guard let preset = all[configuration.name] else { return configuration }
        var filled = configuration
        filled.issuer = filled.issuer ?? (filled.type == preset.type ? preset.issuer : nil)
        filled.authorizationURL = filled.authorizationURL ?? preset.authorizationURL
        filled.tokenURL = filled.tokenURL ?? preset.tokenURL
        filled.userInfoURL = filled.userInfoURL ?? preset.userInfoURL
        filled.jwksURL = filled.jwksURL ?? preset.jwksURL
        if filled.scopes.isEmpty { filled.scopes = preset.scopes }
        return filled
    }
}
