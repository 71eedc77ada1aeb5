import Foundation
import GRDB

/// A row of `oauth_providers`; the client secret stays sealed (`SecretBox`) in this type.
public struct ProviderRecord: Sendable, Equatable, Codable, FetchableRecord {
    public var name: String
    public var type: String
    public var mode: String
    public var displayName: String?
    public var issuer: String?
    public var authorizationURL: String?
    public var tokenURL: String?
    public var userInfoURL: String?
    public var jwksURL: String?
    public var clientId: String
    public var clientSecretSealed: Data?
    /// Space-separated.
    public var scopes: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        name: String, type: String, mode: String, displayName: String?, issuer: String?, authorizationURL: String?,
        tokenURL: String?, userInfoURL: String?, jwksURL: String?, clientId: String, clientSecretSealed: Data?,
        scopes: String, createdAt: Date, updatedAt: Date
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
        self.clientSecretSealed = clientSecretSealed
        self.scopes = scopes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case name, type, mode, issuer, scopes
        case displayName = "display_name"
        case authorizationURL = "authorization_url"
        case tokenURL = "token_url"
        case userInfoURL = "userinfo_url"
        case jwksURL = "jwks_url"
        case clientId = "client_id"
        case clientSecretSealed = "client_secret_sealed"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

extension ProviderRecord {
    /// Reads the columns by name, for GRDB's rows and the hot reads alike (every sign-in page
    /// lists the providers).
    public init(row: Row) throws {
        try self.init(columns: row)
    }

    init(columns row: some ColumnValues) throws {
        self.init(
            name: try row.string(CodingKeys.name.rawValue),
            type: try row.string(CodingKeys.type.rawValue),
            mode: try row.string(CodingKeys.mode.rawValue),
            displayName: try row.optionalString(CodingKeys.displayName.rawValue),
            issuer: try row.optionalString(CodingKeys.issuer.rawValue),
            authorizationURL: try row.optionalString(CodingKeys.authorizationURL.rawValue),
            tokenURL: try row.optionalString(CodingKeys.tokenURL.rawValue),
            userInfoURL: try row.optionalString(CodingKeys.userInfoURL.rawValue),
            jwksURL: try row.optionalString(CodingKeys.jwksURL.rawValue),
            clientId: try row.string(CodingKeys.clientId.rawValue),
            clientSecretSealed: try row.optionalData(CodingKeys.clientSecretSealed.rawValue),
            scopes: try row.string(CodingKeys.scopes.rawValue),
            createdAt: try row.date(CodingKeys.createdAt.rawValue),
            updatedAt: try row.date(CodingKeys.updatedAt.rawValue))
    }
}
