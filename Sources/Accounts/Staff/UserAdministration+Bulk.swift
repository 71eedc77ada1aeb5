import AuthCore

/// What staff can do to several accounts picked in the console's list at once.
public enum BulkUserAction: String, Sendable, CaseIterable {
    case verify
    case disable
    case enable
    case tag
    case delete

    /// The act as a button or question says it ("Disable 3 users?").
    public var verb: String {
        switch self {
        case .verify: "Verify"
        case .disable: "Disable"
        case .enable: "Enable"
        case .tag: "Tag"
        case .delete: "Delete"
        }
    }

    /// The act done, for the notice afterwards ("Disabled 3 users.").
    public var done: String {
        switch self {
        case .verify: "Verified"
        case .disable: "Disabled"
        case .enable: "Enabled"
        case .tag: "Tagged"
        case .delete: "Deleted"
        }
    }
}

extension UserAdministration {
    /// The most accounts one bulk act takes when picked one by one (a page of the list is 50).
    public static let bulkLimit = 500
    /// The most accounts "select all N matching" takes: past it, staff narrow the filters first.
    public static let matchingLimit = 5_000

    /// Every account `query` (with `tag` and `locked`, as the list reads them) matches, page after
    /// page, for "select all N matching"; nil when more than `matchingLimit` match.
    public func allMatching(_ query: UserQuery, taggedWith tag: String?, locked: Bool) async throws -> [UserID]? {
        var query = query
        query.page = 1
        query.perPage = Self.bulkLimit
        query.cursor = nil
        var ids: [UserID] = []
        while true {
            let page = try await users(query, taggedWith: tag, locked: locked)
            ids += page.users.map(\.id)
            if ids.count > Self.matchingLimit { return nil }
            if page.users.count < query.perPage { return ids }
            query.page += 1
        }
    }

    /// Applies `action` to each account in turn through the one-account act (`update`, `delete`, or
    /// a tag), so each gets its own audit row and the same session rules; an account gone meanwhile
    /// is skipped. Takes up to `bulkLimit` accounts, or `matchingLimit` picked as `allMatching`.
    /// Returns how many accounts it changed.
    public func apply(
        _ action: BulkUserAction, tag: String? = nil, to ids: [UserID], allMatching: Bool = false
    ) async throws -> Int {
        var seen = Set<UserID>()
        let ids = ids.filter { seen.insert($0).inserted }
        let limit = allMatching ? Self.matchingLimit : Self.bulkLimit
        guard !ids.isEmpty, ids.count <= limit else {
            throw AuthError.validation([FieldError(field: "ids", message: "Select 1 to \(limit) users.")])
        }
        let tag = tag?.trimmingCharacters(in: .whitespaces) ?? ""
        if action == .tag, let problem = TestUserOperations.tagProblem(tag) {
            throw AuthError.validation([FieldError(field: "tag", message: problem)])
        }
        var changed = 0
        for id in ids {
            let user: User
            do { user = try await self.user(id) } catch AuthError.userNotFound { continue }
            switch action {
            case .verify: _ = try await update(user, UserUpdate(verified: true))
            case .disable: _ = try await update(user, UserUpdate(disabled: true))
            case .enable: _ = try await update(user, UserUpdate(disabled: false))
            case .delete: try await delete(user)
            case .tag: try await self.tag(user, with: tag)
            }
            changed += 1
        }
        return changed
    }

    /// Tags the account (a tag it has already is kept as it is).
    func tag(_ user: User, with tag: String) async throws {
        try await env.database.addTag(tag, to: [user.id], at: env.clock())
        await env.audit.record(
            .adminUserTagged, actor: staff.superuser.id, subject: user.id.rawValue, request: request,
            data: ["tag": .string(tag), "via": .string(via)])
    }
}
