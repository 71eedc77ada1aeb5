/// One page of a user search for the console.
public struct UserQuery: Sendable, Hashable {
    /// Matches part of the email or name, case-insensitively; nil lists everyone.
    public var search: String?
    /// 1-based.
    public var page: Int
    public var perPage: Int

    public init(search: String? = nil, page: Int = 1, perPage: Int = 30) {
        self.search = search
        self.page = max(1, page)
        self.perPage = min(max(1, perPage), 500)
    }
}

/// A page of users, newest first, and how many match in all.
public struct UserPage: Sendable, Hashable {
    public var users: [User]
    public var page: Int
    public var perPage: Int
    public var totalItems: Int

    public init(users: [User], page: Int, perPage: Int, totalItems: Int) {
        self.users = users
        self.page = page
        self.perPage = perPage
        self.totalItems = totalItems
    }

    public var totalPages: Int { totalItems == 0 ? 0 : (totalItems + perPage - 1) / perPage }
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
    /// Shallow-merged into the profile (`null` removes a key).
    public var profilePatch: [String: JSONValue]?

    public init(email: String? = nil, password: String? = nil, verified: Bool? = nil,
                profilePatch: [String: JSONValue]? = nil) {
        self.email = email
        self.password = password
        self.verified = verified
        self.profilePatch = profilePatch
    }
}
