import AuthCore
import Foundation
import HTTPServer
import Store

/// A signed-in superuser: the console session and who it belongs to.
public struct Staff: Sendable {
    public var session: SessionRow
    public var superuser: StaffMember
}

/// Staff's doors to the one session store (`SessionBindings`): the console's cookie (`SameSite=Strict`,
/// see `ConsoleSessions+Cookies`), the admin API's bearer and PocketBase's `_superusers` token, each
/// a `SessionKind` of its own under the staff windows (`SessionWindows.staff`), so a person's
/// session can never reach the console nor a console token open a person's session — and a token
/// made for one of staff's doors opens no other.
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

    /// No console session lives longer than this (the cookie's max age).
    public static let lifetime = SessionWindows.staff.lifetime

    let bindings: SessionBindings
    let audit: AuditTrail
    public let secureCookies: Bool

    /// The superuser behind a token used at `door`.
    public func lookUp(token: String?, at door: Door) async -> Staff? {
        guard let token, !token.isEmpty else { return nil }
        return await bindings.staff(token: token, kind: door.kind, windows: .staff)
    }

    /// Creates a session for `superuser` at `door` and returns its token (for the cookie or the API reply).
    func start(for superuser: StaffMember, at door: Door, request: Request) async throws -> (token: String, expiresAt: Date) {
        try await bindings.bind(superuser, kind: door.kind, windows: .staff, request: request)
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
        try await bindings.renew(staff, kind: Door.console.kind, request: request)
    }

    /// Ends `staff`'s console session, recorded as `console.sign_out`.
    public func signOut(_ staff: Staff, request: Request) async throws {
        try await bindings.revoke(staff)
        await audit.record(.consoleSignOut, actor: staff.superuser.id, request: request)
    }
}
