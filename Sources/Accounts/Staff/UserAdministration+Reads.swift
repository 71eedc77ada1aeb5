import AuthCore
import Foundation
import HTTPServer
import ServerSeam
import Store

/// What support staff read about accounts, for the console's users list and user page and the
/// JSON admin API alike: the backend's accounts beside Gatehouse's own state about them (tags,
/// last sign-ins, sessions).
extension UserAdministration {
    /// A superuser's administration through the configured backend.
    public init(env: Accounts, staff: Staff, request: Request, via: String) {
        self.init(env: env, api: env.backend, staff: staff, request: request, via: via)
    }

    /// The account with this id; `AuthError.userNotFound` when there is none.
    public func user(_ id: UserID) async throws -> User {
        try await api.admin.user(id)
    }

    /// One page of accounts; with a `tag`, only the accounts that carry it: the embedded store reads
    /// the tags itself, any other backend is named the tagged accounts. With `locked`, only the
    /// accounts whose address has a sign-in back-off running (the first `lockedLimit` addresses).
    public func users(_ query: UserQuery, taggedWith tag: String?, locked: Bool = false) async throws -> UserPage {
        var query = query
        if locked {
            let addresses = try await env.budgets.lockedAddresses(limit: Self.lockedLimit)
            query.ids = try await env.database.userIDs(normalizedEmails: addresses)
        }
        guard let tag else { return try await api.admin.listUsers(query) }
        if let lists = api.admin as? any TaggedUserLists { return try await lists.listUsers(query, taggedWith: tag) }
        let tagged = try await env.database.userIDs(taggedWith: tag)
        query.ids = query.ids.map { locked in tagged.filter(Set(locked).contains) } ?? tagged
        return try await api.admin.listUsers(query)
    }

    /// How many locked addresses the "locked" filter looks at.
    static let lockedLimit = 1000

    /// The tags of each of these accounts.
    public func tags(of ids: [UserID]) async throws -> [UserID: [String]] {
        try await env.database.tags(of: ids)
    }

    /// The tags of one account.
    public func tags(of user: User) async throws -> [String] {
        try await tags(of: [user.id])[user.id] ?? []
    }

    /// Which of these accounts hold the staff role: their address is a superuser's too (staff's own
    /// collection, `ImpersonationPolicy`'s rule), so the console badges them.
    public func holdingStaffRole(_ users: [User]) async throws -> Set<UserID> {
        let staff = try await env.database.superuserEmails(among: users.map(\.email))
        return Set(users.filter { staff.contains(EmailAddress.normalize($0.email)) }.map(\.id))
    }

    /// When each of these accounts last signed in through Gatehouse.
    /// Which of `ids` are guest accounts (`GuestSignUp`), for the list's "Guest" badge.
    public func guests(among ids: [UserID]) async throws -> Set<UserID> {
        try await env.database.guests(among: ids)
    }

    /// How many guest accounts there are.
    public func guestCount() async throws -> Int { try await env.database.guestCount() }

    public func lastSignIns(of ids: [UserID]) async throws -> [UserID: Date] {
        try await env.database.lastSignIns(of: ids)
    }

    /// Each account's linked providers, sorted, in one call; a backend that cannot say shows none.
    public func linkedProviders(of ids: [UserID]) async -> [UserID: [String]] {
        guard api.capabilities.contains(.externalAuths), let links = try? await api.admin.externalAuths(of: ids) else {
            return [:]
        }
        return links.compactMapValues { $0.isEmpty ? nil : $0.map(\.provider).sorted() }
    }

    /// The account's links to sign-in providers.
    public func externalAuths(of user: User) async throws -> [ExternalAuth] {
        try await api.admin.externalAuths(of: user.id)
    }

    /// Whether the account has two-step sign-in on, and how many recovery codes are left.
    public func totpStatus(of user: User) async throws -> TOTPStatus {
        try await api.admin.totpStatus(of: user.id)
    }

    /// The account's Gatehouse sessions, newest first, live or not.
    public func sessions(of user: User) async throws -> [SessionRow] {
        try await env.database.sessions(userID: user.id).map(SessionRow.init)
    }

    /// The address change the person asked for and has not confirmed yet, with when its link or
    /// code stops working; nil when none is waiting.
    public func waitingEmailChange(of user: User) async throws -> (newEmail: String, expiresAt: Date)? {
        try await env.database.waitingEmailChange(userID: user.id, now: env.clock())
    }
}
