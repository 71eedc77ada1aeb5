import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// Minting a session's tokens and rotating them, shared by the core's session recipe and the
/// frontend API (FDI), so a session either opened refreshes through the other.
extension SuperTokensTokens {
    /// What a presented refresh token came to.
    enum Rotation: Sendable {
        /// A new pair for a current refresh token.
        case minted(Minted)
        /// A refresh token already rotated away, presented again: its session is revoked.
        case theft(handle: String, userID: String)
        /// Unknown, altered, expired, or its session ended: why, in the core's words.
        case refused(String)
    }

    /// The tokens of a newly opened row, carrying `userData` in the access token.
    func mint(_ opened: AppSessions.Opened, userData: [String: JSONValue], antiCsrf: String?, dynamic: Bool) throws -> Minted {
        let userID = opened.user.id.rawValue
        let refresh = sealRefresh(.init(h: opened.handle, r: opened.refreshToken, d: userData))
        let access = try accessToken(
            handle: opened.handle, userID: userID, userData: userData, refreshToken: refresh, parentRefreshToken: nil,
            antiCsrfToken: antiCsrf, dynamic: dynamic)
        return Minted(
            handle: opened.handle, userID: userID, userData: userData, accessToken: access.token,
            accessExpiry: access.expiry, refreshToken: refresh, antiCsrfToken: antiCsrf, createdTime: access.createdTime)
    }

    /// Rotates `presented`; `userData` gives the new access token's app claims from the signed-in
    /// person and the claims the session kept (`PUT /recipe/jwt/data`, a regeneration, else the
    /// refresh token's own).
    func rotate(
        _ presented: String, antiCsrf: String?, dynamic: Bool,
        userData: (SignedIn, [String: JSONValue]) async throws -> [String: JSONValue]
    ) async throws -> Rotation {
        guard let parts = openRefresh(presented) else { return .refused("Refresh token not found") }
        switch try await sessions.rotate(refreshToken: parts.r, lifetime: accessLifetime, familyLifetime: Self.refreshLifetime) {
        case .rotated(let token, let newRefresh):
            guard let signedIn = await sessions.current(token: token) else {
                return .refused("Session has ended or has been revoked")
            }
            let userID = signedIn.user.id.rawValue
            let data = try await userData(signedIn, try await sessions.data(handle: parts.h)?.inJWT ?? parts.d)
            let refresh = sealRefresh(.init(h: parts.h, r: newRefresh, d: data))
            let access = try accessToken(
                handle: parts.h, userID: userID, userData: data, refreshToken: refresh, parentRefreshToken: presented,
                antiCsrfToken: antiCsrf, dynamic: dynamic)
            return .minted(
                Minted(
                    handle: parts.h, userID: userID, userData: data, accessToken: access.token, accessExpiry: access.expiry,
                    refreshToken: refresh, antiCsrfToken: antiCsrf, createdTime: access.createdTime))
        case .reused:
            env.logger.warning("a rotated SuperTokens refresh token was presented again; its session is revoked")
            return .theft(handle: parts.h, userID: await sessions.owner(ofHandle: parts.h)?.rawValue ?? "")
        case .refused:
            return .refused("Refresh token not found or expired")
        }
    }
}
