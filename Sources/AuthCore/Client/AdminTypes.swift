/// One page of a user search for the console.
public struct UserQuery: Sendable, Hashable {
    /// Matches part of the email or name (any case), or the whole id; nil lists everyone.
    public var search: String?
    /// 1-based; used when `cursor` is nil.
    public var page: Int
    public var perPage: Int
    /// Only verified (true) or unverified (false) accounts.
    public var verified: Bool?
    /// Only disabled (true) or enabled (false) accounts.
    public var disabled: Bool?
    /// Only accounts with (true) or without (false) a linked external sign-in.
    public var hasExternalAuth: Bool?
    /// Only these accounts (the console resolves a test-user tag to ids).
    public var ids: [UserID]?
    /// Only guest accounts (true: made by the Rownd plugin's `guest` route, not yet upgraded) or
    /// only the others (false); backends without guests ignore it.
    public var guest: Bool?
    public var sort: UserSort
    /// Where the previous page ended (`UserPage.nextCursor`); each backend reads only its own.
    public var cursor: String?
    /// A filter in PocketBase's syntax over the `users` record fields (`id`, `email`, `verified`,
    /// `created`, `updated`, `name`, `avatar`, `emailVisibility`), ANDed with the rest. A filter a
    /// backend cannot evaluate is `.validation` on the field `filter`, never a silent full list.
    public var filter: String?
    /// `@request.auth.id` inside `filter`.
    public var filterAuthID: String?
    /// As PocketBase answers anyone but a superuser: a `filter` that names `email` matches only
    /// accounts that show their address (`emailVisibility`), so filters cannot probe for addresses.
    public var emailFilterNeedsVisibility: Bool = false
    /// A sort in PocketBase's syntax (`-created,email`) over the same fields; overrides `sort`.
    public var sortExpression: String?
    /// Don't count the matches (`UserPage.totalItems` is then -1), as PocketBase's `skipTotal`.
    public var skipTotal: Bool = false
    /// Count at most this many matches of a filtered list (`UserPage.totalIsLowerBound` then says the
    /// total is "this many or more"): a console search over a million accounts stays one page of work.
    /// Nil counts them all, as PocketBase's API must.
    public var countLimit: Int?
    /// List the accounts the search names exactly (id, address, or an address's local part) first,
    /// as the console does; paging is then by number only (no `UserPage.nextCursor`).
    public var exactFirst: Bool = false

    public init(
        search: String? = nil, page: Int = 1, perPage: Int = 30, verified: Bool? = nil,
        disabled: Bool? = nil, hasExternalAuth: Bool? = nil, ids: [UserID]? = nil,
        sort: UserSort = .newest, cursor: String? = nil
    ) {
        self.search = search
        self.page = max(1, page)
        self.perPage = min(max(1, perPage), 500)
        self.verified = verified
        self.disabled = disabled
        self.hasExternalAuth = hasExternalAuth
        self.ids = ids
        self.sort = sort
        self.cursor = cursor
    }
}

/// The orders the console lists users in (the raw value is what the console's URL carries).
public enum UserSort: String, Sendable, Hashable, CaseIterable {
    case newest
    case oldest
    case emailAscending = "email"
    case emailDescending = "-email"
    case nameAscending = "name"
    case nameDescending = "-name"
    /// Most recent sign-in first; accounts that never signed in last.
    case lastSignInNewest = "-last-sign-in"
    /// Accounts that never signed in first, then the longest ago.
    case lastSignInOldest = "last-sign-in"
    /// Verified, then unverified, then disabled accounts (newest first within each).
    case statusAscending = "status"
    case statusDescending = "-status"

    /// The same column in the other direction (a header click on the column already sorted).
    public var reversed: UserSort {
        switch self {
        case .newest: .oldest
        case .oldest: .newest
        case .emailAscending: .emailDescending
        case .emailDescending: .emailAscending
        case .nameAscending: .nameDescending
        case .nameDescending: .nameAscending
        case .lastSignInNewest: .lastSignInOldest
        case .lastSignInOldest: .lastSignInNewest
        case .statusAscending: .statusDescending
        case .statusDescending: .statusAscending
        }
    }
}

/// A page of users, newest first, and how many match in all.
public struct UserPage: Sendable, Hashable {
    public var users: [User]
    public var page: Int
    public var perPage: Int
    public var totalItems: Int
    /// Pass as `UserQuery.cursor` for the next page; nil on the last page.
    public var nextCursor: String?
    /// `totalItems` stopped at `UserQuery.countLimit`: there are at least that many.
    public var totalIsLowerBound: Bool

    public init(
        users: [User], page: Int, perPage: Int, totalItems: Int, nextCursor: String? = nil, totalIsLowerBound: Bool = false
    ) {
        self.users = users
        self.page = page
        self.perPage = perPage
        self.totalItems = totalItems
        self.nextCursor = nextCursor
        self.totalIsLowerBound = totalIsLowerBound
    }

    public var totalPages: Int {
        totalItems < 0 ? -1 : totalItems == 0 ? 0 : (totalItems + perPage - 1) / perPage
    }
}

/// An account created by an administrator, verified or not.
public struct NewUser: Sendable, Hashable {
    public var email: String
    public var password: String
    public var verified: Bool
    public var profile: Profile

    public init(email: String, password: String, verified: Bool = false, profile: Profile = Profile()) {
        self.email = email
        self.password = password
        self.verified = verified
        self.profile = profile
    }
}

/// An administrator's change to an account; nil fields stay as they are.
public struct UserUpdate: Sendable, Hashable {
    public var email: String?
    public var password: String?
    public var verified: Bool?
    /// A disabled account cannot sign in; backends without the notion refuse with `.notSupported`.
    public var disabled: Bool?
    /// Shallow-merged into the profile (`null` removes a key).
    public var profilePatch: [String: JSONValue]?

    public init(
        email: String? = nil, password: String? = nil, verified: Bool? = nil, disabled: Bool? = nil,
        profilePatch: [String: JSONValue]? = nil
    ) {
        self.email = email
        self.password = password
        self.verified = verified
        self.disabled = disabled
        self.profilePatch = profilePatch
    }
}
