import AuthCore

/// PocketBase's default view and list rule of `users`, `id = @request.auth.id`: a user sees their
/// own record, superusers see every record, guests none. The one owner of that rule: the records
/// API (list, view, update, delete) and realtime record events both ask here.
extension PocketBaseCaller {
    func mayView(_ id: UserID) -> Bool {
        switch self {
        case .guest: false
        case .user(let signedIn, _): signedIn.user.id == id
        case .superuser: true
        }
    }

    /// `query` narrowed to the records this caller may see, with what its `filter` needs to know
    /// about the caller (`@request.auth.id`; an email visible only where `emailVisibility` is on).
    func scoped(_ query: UserQuery) -> UserQuery {
        var query = query
        switch self {
        case .guest: query.ids = []
        case .user(let signedIn, _): query = Self.scoped(query, toUser: signedIn.user.id)
        case .superuser(let staff): query.filterAuthID = staff.superuser.id
        }
        return query
    }

    /// `query` narrowed as for the signed-in user `user`.
    static func scoped(_ query: UserQuery, toUser user: UserID) -> UserQuery {
        var query = query
        query.ids = (query.ids ?? [user]).filter { $0 == user }
        query.filterAuthID = user.rawValue
        query.emailFilterNeedsVisibility = true
        return query
    }
}
