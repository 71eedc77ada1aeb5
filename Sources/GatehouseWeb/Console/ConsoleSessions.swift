import Foundation
import HTTPServer
import Logging
import Secrets
import Store

/// A signed-in superuser: the console session and who it belongs to.
struct Staff: Sendable {
    var session: ConsoleSessionRecord
    var superuser: SuperuserRecord
}

/// Console sessions: their own table and their own cookie (`SameSite=Strict`, idle timeout), so a
/// user's session can never reach the console. The admin API takes the same token as a bearer.
struct ConsoleSessions: Sendable {
    static let cookieName = "gh_console"
    /// A console left alone this long signs itself out.
    static let idleTimeout: TimeInterval = 30 * 60
    /// And no console session lives longer than this.
    static let lifetime: TimeInterval = 12 * 3600

    let database: AppDatabase
    let hasher: KeyedHash
    let clock: @Sendable () -> Date
    let secureCookies: Bool
    let logger: Logger

    /// The superuser behind the console cookie, or nil.
    func fromCookie(_ request: Request) async -> Staff? {
        await lookUp(token: request.cookies[Self.cookieName])
    }

    /// The superuser behind `Authorization: Bearer TOKEN`, or nil. Cookies are never accepted
    /// on the JSON API, so a cross-site page cannot drive it with a staff member's browser.
    func fromBearer(_ request: Request) async -> Staff? {
        guard let header = request.headers["Authorization"], header.lowercased().hasPrefix("bearer ") else { return nil }
        return await lookUp(token: String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
    }

    /// The superuser behind a console session token carried some other way (a PocketBase-API token).
    func lookUp(token: String?) async -> Staff? {
        guard let token, !token.isEmpty else { return nil }
        let now = clock()
        do {
            guard
                let found = try await database.activeConsoleSession(
                    tokenHash: hasher.hex(token), now: now, idleTimeout: Self.idleTimeout)
            else { return nil }
            // The idle timeout is measured from the last request, written at most once a minute
            // (`SessionBindings.touchInterval`) so a request is not a database write.
            if now.timeIntervalSince(found.session.lastUsedAt) > SessionBindings.touchInterval {
                try await database.touchConsoleSession(id: found.session.id, at: now)
            }
            return Staff(session: found.session, superuser: found.superuser)
        } catch {
            logger.error("console session lookup failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Creates a session for `superuser` and returns its token (for the cookie or the API reply).
    func start(for superuser: SuperuserRecord, request: Request) async throws -> (token: String, expiresAt: Date) {
        let now = clock()
        let token = SecureRandom.token()
        let expiresAt = now.addingTimeInterval(Self.lifetime)
        try await database.createConsoleSession(
            tokenHash: hasher.hex(token), superuserID: superuser.id,
            userAgent: request.headers["User-Agent"].map { String($0.prefix(512)) }, ip: request.remoteAddress,
            at: now, expiresAt: expiresAt)
        return (token, expiresAt)
    }

    func cookie(token: String) -> Cookie {
        Cookie(
            name: Self.cookieName, value: token, maxAge: Int(Self.lifetime), httpOnly: true,
            secure: secureCookies, sameSite: .strict)
    }

    func end(_ staff: Staff?, response: inout Response) async throws {
        if let staff { try await database.revokeConsoleSession(id: staff.session.id, at: clock()) }
        response.setCookie(
            Cookie(
                name: Self.cookieName, value: "", maxAge: 0, httpOnly: true,
                secure: secureCookies, sameSite: .strict))
    }
}
