import AuthCore
import Foundation
import GRDB

/// Why a provider round trip was started; stored as its raw value.
public enum OAuthFlowPurpose: String, Sendable, Equatable, Codable, DatabaseValueConvertible {
    /// Sign in (or up) with the provider.
    case signIn = "sign_in"
    /// Link the provider to the signed-in account that started the flow.
    case link
}

/// A row of `oauth_flows`: what the callback needs to finish one provider round trip.
public struct OAuthFlowRecord: Sendable, Equatable, Codable, FetchableRecord {
    public var stateHash: String
    public var browserHash: String
    public var provider: String
    public var purpose: OAuthFlowPurpose
    public var userID: UserID?
    public var codeVerifier: String
    public var nonce: String
    /// The hosted page's app request (JSON) when the sign-in started there.
    public var appRequest: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var consumedAt: Date?

    public init(
        stateHash: String, browserHash: String, provider: String, purpose: OAuthFlowPurpose, userID: UserID?,
        codeVerifier: String, nonce: String, appRequest: String?, createdAt: Date, expiresAt: Date
    ) {
        self.stateHash = stateHash
        self.browserHash = browserHash
        self.provider = provider
        self.purpose = purpose
        self.userID = userID
        self.codeVerifier = codeVerifier
        self.nonce = nonce
        self.appRequest = appRequest
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        consumedAt = nil
    }

    enum CodingKeys: String, CodingKey {
        case provider, purpose, nonce
        case stateHash = "state_hash"
        case browserHash = "browser_hash"
        case userID = "user_id"
        case codeVerifier = "code_verifier"
        case appRequest = "app_request"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case consumedAt = "consumed_at"
    }
}

extension AppDatabase {
    public func insertOAuthFlow(_ flow: OAuthFlowRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO oauth_flows (state_hash, browser_hash, provider, purpose, user_id, code_verifier, nonce,
                        app_request, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    flow.stateHash, flow.browserHash, flow.provider, flow.purpose, flow.userID?.rawValue,
                    flow.codeVerifier, flow.nonce, flow.appRequest, flow.createdAt.storedText, flow.expiresAt.storedText
                ])
        }
    }

    /// The flow with this state hash, without consuming it.
    public func oauthFlow(stateHash: String) async throws -> OAuthFlowRecord? {
        try await pool.read { db in
            try OAuthFlowRecord.fetchOne(db, sql: "SELECT * FROM oauth_flows WHERE state_hash = ?", arguments: [stateHash])
        }
    }

    /// Marks the flow with this state hash consumed and returns it as it was — nil when unknown.
    /// A flow already consumed or expired is returned too (with its `consumedAt`) so the caller can
    /// tell a replay from a stranger; only the first call ever gets `consumedAt == nil`.
    public func consumeOAuthFlow(stateHash: String, at now: Date) async throws -> OAuthFlowRecord? {
        try await pool.write { db in
            guard
                let flow = try OAuthFlowRecord.fetchOne(
                    db, sql: "SELECT * FROM oauth_flows WHERE state_hash = ?",
                    arguments: [stateHash])
            else { return nil }
            if flow.consumedAt == nil {
                try db.execute(
                    sql: "UPDATE oauth_flows SET consumed_at = ? WHERE state_hash = ? AND consumed_at IS NULL",
                    arguments: [now.storedText, stateHash])
            }
            // Old flows are of no use to anyone: drop those older than a day.
            try db.execute(
                sql: "DELETE FROM oauth_flows WHERE expires_at < ?", arguments: [now.addingTimeInterval(-86_400).storedText])
            return flow
        }
    }
}
