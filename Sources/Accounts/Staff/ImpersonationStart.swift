import AuthCore
import Foundation
import HTTPServer

/// The one way an impersonation starts, from the console's user page, `POST /_/api/users/{id}/impersonate`
/// and PocketBase's `impersonate`: `ImpersonationPolicy` first, then the backend's own
/// impersonation session (never refreshable), then one `impersonation.started` event naming the
/// superuser (actor, by id), the user (subject), `mode`, `seconds`, `via` and the staff's `reason`
/// and `ticket` (`ImpersonationReason`, required by `--impersonation-reason required`) — recorded
/// only once the session exists.
public struct ImpersonationStart: Sendable {
    let env: Accounts
    let staff: Staff
    let request: Request
    /// Which front-end asked, kept in the audit event (`console`, `api`, `pocketbase-api`).
    let via: String

    public init(env: Accounts, staff: Staff, request: Request, via: String) {
        self.env = env
        self.staff = staff
        self.request = request
        self.via = via
    }

    /// What the superuser gets, which decides how the backend opens the session.
    public enum Delivery: Sendable {
        /// A Gatehouse browser session as the user (the console's "Open as this user").
        case browserSession
        /// The backend's own token (the console's "Copy API token").
        case backendToken
        /// The backend's own token and a one-time link that opens a browser session with it
        /// (`POST /_/api/users/{id}/impersonate`).
        case backendTokenAndLink
        /// A token Gatehouse issues over its own session (PocketBase's `impersonate`).
        case gatehouseToken

        /// The event's `mode`.
        var mode: String {
            switch self {
            case .browserSession: "browser"
            case .backendToken, .gatehouseToken: "token"
            case .backendTokenAndLink: "api"
            }
        }

        /// Whether Gatehouse keeps a session of its own in front of the backend's.
        var backsGatehouseSession: Bool { self == .browserSession || self == .gatehouseToken }
    }

    public struct Started: Sendable {
        /// The backend's impersonation session.
        public var session: AuthSession
        /// How long it lasts (the asked duration, clamped to 1 s…1 h).
        public var duration: TimeInterval
        public var expiresAt: Date
        /// The one-time link's ticket (`/_/impersonation/open?ticket=`), for `.backendTokenAndLink`.
        public var ticket: String?
        /// Why staff opened the account, for the browser session's banner.
        public var reason: ImpersonationReason?
    }

    public enum Outcome: Sendable {
        case started(Started)
        case refused(ImpersonationPolicy.Refusal)
        /// The reason given is not one (too long, a ticket link that is no link) or, where one is
        /// required, none was given: a 400 in each front-end's shape.
        case unexplained(ImpersonationReason.Problem)
    }

    /// Starts impersonating `user` for `duration` (clamped to `Impersonation.maximumDuration`),
    /// for the `reason` and `ticket` link staff typed (blank when none); `impersonating` is whether
    /// the asking browser is itself inside an impersonation.
    public func start(
        _ user: User, delivery: Delivery, duration: TimeInterval, reason: String, ticket: String,
        impersonating: Bool = false
    ) async throws -> Outcome {
        if let refusal = try await ImpersonationPolicy(env: env).refusal(of: user, impersonating: impersonating) {
            return .refused(refusal)
        }
        let given: ImpersonationReason?
        do {
            given = try ImpersonationReason(text: reason, ticket: ticket)
        } catch {
            return .unexplained(error)
        }
        // A ticket link alone says where, not why: a required reason is words.
        if given?.text.isEmpty ?? true, env.impersonationReasonRule == .required { return .unexplained(.missing) }
        let duration = Impersonation.clamp(duration)
        let backend = delivery.backsGatehouseSession ? env.pageBackend : env.backend
        let session = try await backend.admin.impersonate(user.id, duration: duration, actor: staff.superuser.email)
        var started = Started(
            session: session, duration: duration,
            expiresAt: session.expiresAt ?? env.clock().addingTimeInterval(duration), reason: given)
        if delivery == .backendTokenAndLink {
            started.ticket = await env.impersonationTickets.issue(
                ImpersonationTicket(
                    userID: user.id, actor: staff.superuser.email, duration: duration, session: session, reason: given))
        }
        var data: [String: JSONValue] = ["mode": .string(delivery.mode), "seconds": .number(duration), "via": .string(via)]
        if let given {
            data["reason"] = .string(given.text)
            if let link = given.ticketURL { data["ticket"] = .string(link) }
        }
        await env.audit.record(
            .impersonationStarted, actor: staff.superuser.id, subject: user.id.rawValue, request: request, data: data)
        return .started(started)
    }

    /// `start` for an account named by id (PocketBase's route): `AuthError.userNotFound` when
    /// there is none.
    public func start(_ id: UserID, delivery: Delivery, duration: TimeInterval, reason: String, ticket: String)
        async throws -> Outcome
    {
        try await start(
            try await env.backend.admin.user(id), delivery: delivery, duration: duration, reason: reason, ticket: ticket)
    }
}
