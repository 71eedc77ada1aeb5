import AuthCore
import Foundation
import Store

/// A provider round trip started on Gatehouse's pages (`OAuthFlows`), as its callback reads it to
/// decide whether this browser may finish it, and to finish it.
public struct ProviderFlow: Sendable, Equatable {
    /// What the round trip is for.
    public enum Purpose: Sendable, Equatable {
        /// Sign in (or up) with the provider.
        case signIn
        /// Link the provider to the signed-in account that started the flow.
        case link

        /// The stored purpose.
        var stored: OAuthFlowPurpose { self == .link ? .link : .signIn }
    }

    /// The keyed hash of the browser binding the flow was started with (`OAuthFlows.browserHash`).
    public var browserHash: String
    public var provider: String
    public var purpose: Purpose
    /// The account linking, for a `.link` flow.
    public var userID: UserID?
    public var codeVerifier: String
    public var nonce: String
    /// The hosted page's app request (JSON) when the sign-in started there.
    public var appRequest: String?
    public var expiresAt: Date
    /// When a callback spent it; nil while it may still be finished.
    public var consumedAt: Date?

    init(_ row: OAuthFlowRecord) {
        browserHash = row.browserHash
        provider = row.provider
        purpose = row.purpose == .link ? .link : .signIn
        userID = row.userID
        codeVerifier = row.codeVerifier
        nonce = row.nonce
        appRequest = row.appRequest
        expiresAt = row.expiresAt
        consumedAt = row.consumedAt
    }
}
