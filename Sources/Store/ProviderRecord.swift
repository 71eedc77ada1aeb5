import Foundation
import GRDB

/// A row of `oauth_providers`; the client secret stays sealed (`SecretBox`) in this type.
public struct ProviderRecord: Sendable, Equatable, FetchableRecord {
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
    public var clientSecretSealed: [UInt8]?
    /// Space-separated.
    public var scopes: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        name: String, type: String, mode: String, displayName: String?, issuer: String?, authorizationURL: String?,
        tokenURL: String?, userInfoURL: String?, jwksURL: String?, clientId: String, clientSecretSealed: [UInt8]?,
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

    public init(row: Row) throws {
        name = row["name"]
        type = row["type"]
        mode = row["mode"]
        displayName = row["display_name"]
        issuer = row["issuer"]
        authorizationURL = row["authorization_url"]
        tokenURL = row["token_url"]
        userInfoURL = row["userinfo_url"]
        jwksURL = row["jwks_url"]
        clientId = row["client_id"]
        clientSecretSealed = (row["client_secret_sealed"] as Data?).map(Array.init)
        scopes = row["scopes"]
        createdAt = row["created_at"]
        updatedAt = row["updated_at"]
    }
}
