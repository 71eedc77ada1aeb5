import Foundation

/// A signed-in session as the client keeps it: the tokens, when the access token expires, and the
/// user it belongs to. Codable so `FileSessionStorage` can keep it across launches.
public struct AuthSession: Sendable, Hashable, Codable {
    /// Sent with every call made as this user. Never logged.
    public var accessToken: String
    /// Renews the session; nil when the backend refreshes with the access token itself (PocketBase)
    /// or when the session cannot be refreshed at all.
    public var refreshToken: String?
    /// When the access token stops working, when known.
    public var expiresAt: Date?
    /// False for impersonation sessions: they end at `expiresAt`.
    public var refreshable: Bool
    /// The user as of the last call that returned it.
    public var user: User

    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date?, refreshable: Bool = true, user: User) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.refreshable = refreshable
        self.user = user
    }

    /// True when the access token expires within `margin` seconds of `now` (or already has).
    public func expires(within margin: TimeInterval, of now: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= margin
    }
}

extension AuthSession: CustomStringConvertible {
    /// Names the user and expiry only: tokens never reach logs or test output.
    public var description: String {
        "AuthSession(user: \(user.id), expiresAt: \(expiresAt.map { "\($0)" } ?? "unknown"), refreshable: \(refreshable))"
    }
}
