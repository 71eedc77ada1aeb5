import AuthCore
import Foundation
import HTTPServer
import Logging
import Secrets
import Store

/// A signed-in superuser: the console session and who it belongs to.
public struct Staff: Sendable {
    public var session: SessionRow
    public var superuser: StaffMember

}

/// Superusers' sessions: rows of the one session store held by a superuser (never a person),
/// their tokens hashed under the kind of their door (`Door`), with their own cookie
/// (`SameSite=Strict`, idle timeout, see `ConsoleSessions+Cookies`), so a person's session can
/// never reach the console nor a console token open a person's session — and a token made for one
/// of staff's doors opens no other.
public struct ConsoleSessions: Sendable {
    /// Where a superuser's token is used: each door hashes its tokens under its own kind.
    public enum Door: Sendable {
        /// The console's `gh_console` cookie.
        case console
        /// `Authorization: Bearer` on the JSON admin API (`POST /_/api/auth` hands it out).
        case adminAPI
        /// The `sid` of a PocketBase-API `_superusers` token.
        case pocketBaseAPI

        var kind: SessionKind {
            switch self {
            case .console: .console
            case .adminAPI: .adminAPI
            case .pocketBaseAPI: .pocketBaseSuperuser
            }
        }
    }

    /// A console left alone this long signs itself out.
    static let idleTimeout: TimeInterval = 30 * 60
    /// And no console session lives longer than this.
    public static let lifetime: TimeInterval = 12 * 3600

    let database: AppDatabase
    let audit: AuditTrail
    let hasher: KeyedHash
    let clock: @Sendable () -> Date
    public let secureCookies: Bool
    let logger: Logger

    init(
        database: AppDatabase, audit: AuditTrail, hasher: KeyedHash, clock: @escaping @Sendable () -> Date, secureCookies: Bool,
        logger: Logger
    ) {
        self.database = database
        self.audit = audit
        self.hasher = hasher
        self.clock = clock
        self.secureCookies = secureCookies
        self.logger = logger
    }

    /// The superuser behind a token used at `door`.
    public func lookUp(token: String?, at door: Door) async -> Staff? {
        guard let token, !token.isEmpty else { return nil }
        let now = clock()
        do {
            guard
                let found = try await database.activeConsoleSession(
                    tokenHash: door.kind.tokenHash(token, with: hasher), now: now, idleTimeout: Self.idleTimeout)
            else { return nil }
            // The idle timeout is measured from the last request, written at most once a minute
            // (`SessionBindings.touchInterval`) so a request is not a database write.
            if now.timeIntervalSince(found.session.lastUsedAt) > SessionBindings.touchInterval {
                try await database.touchSession(id: found.session.id, at: now)
            }
            return Staff(session: SessionRow(found.session), superuser: StaffMember(found.superuser))
        } catch {
            logger.error("console session lookup failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Creates a session for `superuser` at `door` and returns its token (for the cookie or the API reply).
    func start(for superuser: StaffMember, at door: Door, request: Request) async throws -> (token: String, expiresAt: Date) {
        let now = clock()
        let token = SecureRandom.token()
        let expiresAt = now.addingTimeInterval(Self.lifetime)
        try await database.createConsoleSession(
            tokenHash: door.kind.tokenHash(token, with: hasher), superuserID: superuser.id,
            userAgent: request.headers["User-Agent"].map { String($0.prefix(512)) }, ip: request.remoteAddress,
            at: now, expiresAt: expiresAt)
        return (token, expiresAt)
    }

    /// `start(for:request:)` after a completed sign-in, recorded as `console.sign_in.completed`
    /// (with `secondStep: totp` or `recovery_code` when a second step followed the password, and
    /// the front-end when it is not the console's form).
    public func open(
        for superuser: StaffMember, at door: Door, request: Request, secondStep: SecondFactor.Method?, via: String? = nil
    ) async throws -> (token: String, expiresAt: Date) {
        let session = try await start(for: superuser, at: door, request: request)
        await audit.record(
            .consoleSignInCompleted, actor: superuser.id, subject: superuser.id, request: request,
            data: AuditTrail.data(secondStep.map { ["secondStep": JSONValue.string($0.rawValue)] } ?? [:], via: via))
        return session
    }

    /// A new console cookie for `staff`'s session, begun now and ending when the old one would
    /// have; the old token stops working (`StaffRecentSignIn.confirm`). Nil when the session ended meanwhile.
    func renew(_ staff: Staff, request: Request) async throws -> String? {
        let token = SecureRandom.token()
        guard
            try await database.renewConsoleSession(
                id: staff.session.id, tokenHash: Door.console.kind.tokenHash(token, with: hasher),
                userAgent: request.headers["User-Agent"].map { String($0.prefix(512)) }, ip: request.remoteAddress,
                at: clock())
        else { return nil }
        return token
    }

    /// Ends `staff`'s console session, recorded as `console.sign_out`.
    public func signOut(_ staff: Staff, request: Request) async throws {
        try await database.revokeSession(id: staff.session.id, at: clock())
        await audit.record(.consoleSignOut, actor: staff.superuser.id, request: request)
    }
}
