import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// `/_/users`: search, filters, a sort per column header and numbered pages over whatever backend
/// holds the users, with a checkbox per row for the bulk acts (`ConsoleBulkActions`).
struct ConsoleUserList: Sendable {
    let env: PageEnvironment
    static let pageSize = 50
    /// A filtered list counts its matches up to this many ("more than 1,000"), so a search that
    /// matches most of a million accounts costs one page, not a count of them all. The whole list,
    /// a tag and a narrow search (at most the Store's `narrowSearchLimit` hits) are counted exactly.
    static let countLimit = 1000
    /// The deepest page a URL may ask for (its offset stays far from overflowing).
    static let maximumPage = 1_000_000

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/users", env) { visit, staff in
            let query = visit.request.query
            let filters = try UserListFilters(query)
            var page: [String: Any] = [
                "filters": filters.context,
                "columns": UserListColumn.allCases.reduce(into: [String: Any]()) { columns, column in
                    columns[column.rawValue] = column.header(filters)
                },
                "bulkActions": BulkUserAction.allCases.map { ["value": $0.rawValue, "label": $0.verb] },
                "returnURL": URLQuery.path("/_/users", filters.queryItems + filters.pageItem),
                "capabilities": ["canCreate": env.capabilities.contains(.userAdministration)]
            ]
            if let action = try query.single("bulk").flatMap(BulkUserAction.init(rawValue:)),
                let changed = try query.single("changed").flatMap(Int.init)
            {
                page["notice"] = "\(action.done) \(Self.users(changed))."
            }
            guard env.capabilities.contains(.userAdministration) else {
                page["unsupported"] =
                    "Listing users is not supported by this backend. In proxy mode, pass --backend-admin EMAIL:PASSWORD."
                return render(visit, staff, page)
            }
            var userQuery = filters.userQuery(perPage: Self.pageSize)
            userQuery.countLimit = Self.countLimit
            userQuery.exactFirst = true
            let administration = UserAdministration(env: env.accounts, staff: staff, request: visit.request, via: "console")
            let result: UserPage
            do {
                result = try await administration.users(userQuery, taggedWith: filters.tag, locked: filters.locked)
            } catch let error as AuthError {
                page["unsupported"] = error.pageMessage
                return render(visit, staff, page)
            }
            let ids = result.users.map(\.id)
            let tags = try await administration.tags(of: ids)
            let lastSignIns = try await administration.lastSignIns(of: ids)
            let providers = await administration.linkedProviders(of: ids)
            let staffRole = try await administration.holdingStaffRole(result.users)
            let guests = try await administration.guests(among: ids)
            page["users"] = result.users.map { user in
                var row: [String: Any] = [
                    "id": user.id.rawValue, "url": ConsoleURL.user(user.id), "email": user.email,
                    "verified": user.emailVerified, "disabled": user.disabled, "staffRole": staffRole.contains(user.id),
                    "guest": guests.contains(user.id),
                    "tags": tags[user.id] ?? [], "providers": providers[user.id] ?? [],
                    "createdAt": DisplayDate.dayAndMinute(user.createdAt)
                ]
                row["name"] = user.profile.name
                row["lastSignInAt"] = lastSignIns[user.id].map(DisplayDate.dayAndMinute)
                return row
            }
            page["empty"] = result.users.isEmpty
            // A page number beyond the list (an old link, a typed URL) is not a filter that matched nothing.
            if result.users.isEmpty, result.totalItems > 0 {
                page["pastLastPage"] = true
                page["firstPageURL"] = URLQuery.path("/_/users", filters.queryItems)
            } else if result.users.isEmpty, !filters.isFiltered {
                page["noUsersYet"] = true
            }
            let pager = UserListPager(
                page: filters.page, perPage: Self.pageSize, total: result.totalItems,
                totalIsLowerBound: result.totalIsLowerBound, shown: result.users.count)
            page["totalText"] =
                result.totalIsLowerBound
                ? "More than \(Self.users(result.totalItems)) match" : Self.users(result.totalItems)
            // Guests are accounts, counted with the rest; the whole list says how many of them there are.
            if !filters.isFiltered {
                let count = try await administration.guestCount()
                if count > 0 {
                    page["guestText"] = count == 1 ? "1 of them a guest" : "\(CountText.grouped(count)) of them guests"
                }
            }
            page["pageInfo"] = pager.rangeText
            // More than a page match: the bulk form can take them all ("Select all 2,500 matching").
            if !result.totalIsLowerBound, result.totalItems > result.users.count,
                result.totalItems <= UserAdministration.matchingLimit
            {
                page["selectMatching"] = ["count": CountText.grouped(result.totalItems)]
            }
            page["pager"] = pagerContext(pager, filters)
            return render(visit, staff, page)
        }
    }

    /// "1 user", "102,306 users".
    static func users(_ count: Int) -> String {
        count == 1 ? "1 user" : "\(CountText.grouped(count)) users"
    }

    private func pagerContext(_ pager: UserListPager, _ filters: UserListFilters) -> [String: Any] {
        func url(_ number: Int) -> String {
            URLQuery.path("/_/users", filters.queryItems + (number > 1 ? [("page", String(number))] : []))
        }
        var context: [String: Any] = [
            "pages": pager.items.map { item -> [String: Any] in
                guard let number = item.number else { return ["gap": true] }
                return ["number": CountText.grouped(number), "url": url(number), "current": item.isCurrent]
            }
        ]
        if pager.hasPrevious { context["previousURL"] = url(pager.page - 1) }
        if pager.hasNext { context["nextURL"] = url(pager.page + 1) }
        return context
    }

    private func render(_ visit: Visit, _ staff: Staff, _ page: [String: Any]) -> Response {
        env.renderer.page(
            .consoleUsers,
            visit.consoleContext(
                title: "Users", staff: staff, nav: .users, backendName: env.configuration.backendDescription, page))
    }
}

/// A sortable column of the users list: its header links to the list sorted by it (the other way
/// when it is the sort already) and says which way it is sorted (`aria-sort`).
enum UserListColumn: String, CaseIterable {
    case email, name, status, created, lastSignIn

    /// The sort a first click asks for.
    private var firstSort: UserSort {
        switch self {
        case .email: .emailAscending
        case .name: .nameAscending
        case .status: .statusAscending
        case .created: .newest
        case .lastSignIn: .lastSignInNewest
        }
    }

    /// The list's sort when it is this column's, and whether it is ascending.
    private func direction(of sort: UserSort) -> Bool? {
        switch (self, sort) {
        case (.email, .emailAscending), (.name, .nameAscending), (.status, .statusAscending),
            (.created, .oldest), (.lastSignIn, .lastSignInOldest):
            true
        case (.email, .emailDescending), (.name, .nameDescending), (.status, .statusDescending),
            (.created, .newest), (.lastSignIn, .lastSignInNewest):
            false
        default: nil
        }
    }

    func header(_ filters: UserListFilters) -> [String: Any] {
        var sorted = filters
        let ascending = direction(of: filters.sort)
        sorted.sort = ascending == nil ? firstSort : filters.sort.reversed
        sorted.page = 1
        var header: [String: Any] = ["url": URLQuery.path("/_/users", sorted.queryItems)]
        if let ascending {
            header["ariaSort"] = ascending ? "ascending" : "descending"
            header["arrow"] = ascending ? "↑" : "↓"
        }
        return header
    }
}

/// The list's filters as read from (and written back to) the query string.
struct UserListFilters {
    var search: String?
    var verified: Bool?
    var disabled: Bool?
    var hasProvider: Bool?
    /// Only guest accounts (true) or only the others (false).
    var guest: Bool?
    /// Only accounts whose address has a sign-in back-off running.
    var locked: Bool
    var tag: String?
    var sort: UserSort
    /// 1-based; pages past `ConsoleUserList.maximumPage` read as it, anything else not a number as 1.
    var page: Int

    init(_ query: Parameters) throws(RequestError) {
        func text(_ name: String) throws(RequestError) -> String? {
            let value = try query.single(name)?.trimmingCharacters(in: .whitespaces)
            return value?.isEmpty == false ? value : nil
        }
        func choice(_ name: String) throws(RequestError) -> Bool? {
            switch try text(name) {
            case "yes": return true
            case "no": return false
            default: return nil
            }
        }
        let search = try text("q")
        self.search = search == nil ? try text("search") : search
        verified = try choice("verified")
        disabled = try choice("disabled")
        hasProvider = try choice("provider")
        guest = try choice("guest")
        locked = try choice("locked") == true
        tag = try text("tag")
        sort = try text("sort").flatMap(UserSort.init(rawValue:)) ?? .newest
        page = min(max(1, try text("page").flatMap { Int($0) } ?? 1), ConsoleUserList.maximumPage)
    }

    /// The query for these filters; with a `cursor` (the admin API's `after`) the page number is ignored.
    func userQuery(perPage: Int, cursor: String? = nil) -> UserQuery {
        var query = UserQuery(
            search: search, page: page, perPage: perPage, verified: verified, disabled: disabled,
            hasExternalAuth: hasProvider, sort: sort, cursor: cursor)
        query.guest = guest
        return query
    }

    /// The page as a query item (none for the first), for a link back to this very page.
    var pageItem: [(String, String)] { page > 1 ? [("page", String(page))] : [] }

    /// Whether any filter narrows the list (the sort does not).
    var isFiltered: Bool {
        search != nil || verified != nil || disabled != nil || hasProvider != nil || guest != nil || locked || tag != nil
    }

    /// The filters and sort as query items, for paging and sorting links.
    var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let search { items.append(("q", search)) }
        if let verified { items.append(("verified", verified ? "yes" : "no")) }
        if let disabled { items.append(("disabled", disabled ? "yes" : "no")) }
        if let hasProvider { items.append(("provider", hasProvider ? "yes" : "no")) }
        if let guest { items.append(("guest", guest ? "yes" : "no")) }
        if locked { items.append(("locked", "yes")) }
        if let tag { items.append(("tag", tag)) }
        if sort != .newest { items.append(("sort", sort.rawValue)) }
        return items
    }

    var context: [String: Any] {
        [
            "q": search ?? "", "tag": tag ?? "",
            "verifiedAny": verified == nil, "verifiedYes": verified == true, "verifiedNo": verified == false,
            "disabledAny": disabled == nil, "disabledYes": disabled == true, "disabledNo": disabled == false,
            "providerAny": hasProvider == nil, "providerYes": hasProvider == true, "providerNo": hasProvider == false,
            "guestAny": guest == nil, "guestYes": guest == true, "guestNo": guest == false,
            "locked": locked,
            // The column headers sort; the filter form carries the sort along.
            "sort": sort == .newest ? "" : sort.rawValue
        ]
    }
}

/// Console URLs built in one place.
enum ConsoleURL {
    static func user(_ id: UserID) -> String {
        "/_/users/" + (id.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id.rawValue)
    }
}
