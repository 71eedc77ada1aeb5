import AuthCore
import Foundation
import HTTPServer
import Secrets
import Store

/// Tokens handed to an app after the hosted sign-in (code exchange) or native Apple sign-in.
struct IssuedTokens: Sendable {
    var accessToken: String
    /// Only for non-web clients (InsForge keeps web refresh tokens in a cookie).
    var refreshToken: String?
}

/// The seam where app tokens are made. This branch's stand-in issues opaque tokens stored hashed
/// in `sessions`; the client-core branch's token system replaces `SessionTableTokenIssuer`.
protocol AppTokenIssuer: Sendable {
    func issue(for user: User, clientType: ClientType, request: Request) async throws -> IssuedTokens
}

/// Opaque 256-bit access (and refresh) tokens; only their keyed hashes are stored, in `sessions`.
struct SessionTableTokenIssuer: AppTokenIssuer {
    let database: AppDatabase
    let hasher: KeyedHash
    let clock: @Sendable () -> Date
    let lifetime: TimeInterval

    func issue(for user: User, clientType: ClientType, request: Request) async throws -> IssuedTokens {
        let now = clock()
        let access = SecureRandom.token()
        let refresh = clientType == .web ? nil : SecureRandom.token()
        _ = try await database.createSession(
            NewSession(
                tokenHash: Self.hash(access, hasher), refreshTokenHash: refresh.map { Self.hash($0, hasher) }, userID: user.id,
                userAgent: request.headers["User-Agent"].map { String($0.prefix(512)) }, ip: request.remoteAddress,
                createdAt: now, expiresAt: now.addingTimeInterval(lifetime), impersonator: nil))
        return IssuedTokens(accessToken: access, refreshToken: refresh)
    }

    /// Domain-separated from browser-session cookies, so an app token never works as a `gh_session`.
    static func hash(_ token: String, _ hasher: KeyedHash) -> String { hasher.hex("app-token:" + token) }
}

/// InsForge's `client_type`: where the app runs.
enum ClientType: String, Sendable {
    case web, mobile, desktop, server
}
