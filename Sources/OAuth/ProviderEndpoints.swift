/// Where one provider lives, after presets and discovery.
public struct ProviderEndpoints: Sendable, Equatable {
    public var issuer: String?
    public var authorizationURL: String
    public var tokenURL: String
    public var userInfoURL: String?
    public var jwksURL: String?
}

/// The parts of an OIDC discovery document Gatehouse reads (OpenID Connect Discovery 1.0 §3).
struct DiscoveryDocument: Decodable {
    var issuer: String
    var authorization_endpoint: String
    var token_endpoint: String
    var userinfo_endpoint: String?
    var jwks_uri: String
}
