import AuthCore
import Foundation

/// What the web layer knows when it opens a session; the store adds the id and timestamps.
public struct NewSession: Sendable, Equatable {
    /// The user agent of the session the embedded backend opens behind each browser session
    /// (`SessionClient.browserSession`). Lists of "where you are signed in" leave them out (the
    /// browser session is listed), and "sign out everywhere else" leaves them to their browser
    /// sessions: a backing session's token lives only sealed inside its browser session.
    public static let browserBackingUserAgent = "gatehouse-client-core"

    public var tokenHash: String
    public var refreshTokenHash: String?
    public var userID: UserID
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var impersonator: String?
    /// Why the impersonator opened the account, and the ticket's link (`ImpersonationReason`).
    public var impersonationReason: String?
    public var impersonationTicket: String?

    public init(
        tokenHash: String, refreshTokenHash: String? = nil, userID: UserID, userAgent: String?, ip: String?,
        createdAt: Date, expiresAt: Date, impersonator: String? = nil, impersonationReason: String? = nil,
        impersonationTicket: String? = nil
    ) {
        self.tokenHash = tokenHash
        self.refreshTokenHash = refreshTokenHash
        self.userID = userID
        self.userAgent = userAgent
        self.ip = ip
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.impersonator = impersonator
        self.impersonationReason = impersonationReason
        self.impersonationTicket = impersonationTicket
    }
}
