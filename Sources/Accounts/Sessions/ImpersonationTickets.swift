import AuthCore
import Foundation
import HTTPServer
import Secrets

/// What a one-time impersonation link opens: a browser session as `userID` for `duration`.
public struct ImpersonationTicket: Sendable {
    public var userID: UserID
    public var actor: String
    public var duration: TimeInterval
    /// The backend's impersonation session (kept beside the browser session in proxy mode).
    public var session: AuthSession
    /// Why staff opened the account, for the banner of the browser session the link opens.
    public var reason: ImpersonationReason?
}

/// One-time links from `POST /_/api/users/{id}/impersonate` (`url`): a script hands one to a
/// browser, which opens it within 60 s to become the user. Kept in memory; single use.
public actor ImpersonationTickets {
    static let lifetime: TimeInterval = 60

    private var tickets: [String: (ticket: ImpersonationTicket, expiresAt: Date)] = [:]
    private let clock: @Sendable () -> Date

    init(clock: @escaping @Sendable () -> Date) { self.clock = clock }

    func issue(_ ticket: ImpersonationTicket) -> String {
        let now = clock()
        tickets = tickets.filter { $0.value.expiresAt > now }
        let id = SecureRandom.token()
        tickets[id] = (ticket, now.addingTimeInterval(Self.lifetime))
        return id
    }

    /// The ticket, if it exists and has not expired; it can be redeemed only once.
    public func redeem(_ id: String) -> ImpersonationTicket? {
        guard let entry = tickets.removeValue(forKey: id), entry.expiresAt > clock() else { return nil }
        return entry.ticket
    }
}
