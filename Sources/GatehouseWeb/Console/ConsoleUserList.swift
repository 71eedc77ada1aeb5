import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// `/_/users`: search, filters, sort and keyset paging over whatever backend holds the users.
struct ConsoleUserList: Sendable {
    let env: PageEnvironment
    static let pageSize = 50
    /// A filtered list counts its matches up to this many ("1,000+ users"), so a search that matches
    /// most of a million accounts costs one page, not a count of them all (at the Store's
    /// `narrowSearchLimit` or under, a broad search needs no count at all).
    static let countLimit = 1000

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/users", env) { visit, staff in
            let query = visit.request.query
            let filters = try UserListFilters(query)
            var page: [String: Any] = [
                "filters": filters.context,
                "sortOptions": UserSort.allCases.map {
                    ["value": $0.rawValue, "label": $0.label, "selected": $0 == filters.sort]
                },
                "capabilities": ["canCreate": env.capabilities.contains(.userAdministration)]
            ]
            guard env.capabilities.contains(.userAdministration) else {
                page["unsupported"] =
                    "Listing users is not supported by this backend. In proxy mode, pass --backend-admin EMAIL:PASSWORD."
                return render(visit, staff, page)
            }
            var userQuery = filters.userQuery(perPage: Self.pageSize, cursor: try query.single("after"))
            userQuery.countLimit = Self.countLimit
            let administration = UserAdministration(env: env.accounts, staff: staff, request: visit.request, via: "console")
            let result: UserPage
            do {
                result = try await administration.users(userQuery, taggedWith: filters.tag)
            } catch let error as AuthError {
                page["unsupported"] = error.pageMessage
                return render(visit, staff, page)
            }
            let ids = result.users.map(\.id)
            let tags = try await administration.tags(of: ids)
            let lastSignIns = try await administration.lastSignIns(of: ids)
            let providers = await administration.linkedProviders(of: ids)
            page["users"] = result.users.map { user in
                var row: [String: Any] = [
                    "id": user.id.rawValue, "url": ConsoleURL.user(user.id), "email": user.email,
                    "verified": user.emailVerified, "disabled": user.disabled,
                    "tags": tags[user.id] ?? [], "providers": providers[user.id] ?? [],
                    "createdAt": DisplayDate.dayAndMinute(user.createdAt)
                ]
                row["name"] = user.profile.name
                row["lastSignInAt"] = lastSignIns[user.id].map(DisplayDate.dayAndMinute)
                return row
            }
            page["empty"] = result.users.isEmpty
            let total = CountText.grouped(result.totalItems) + (result.totalIsLowerBound ? "+" : "")
            page["totalText"] = result.totalItems == 1 && !result.totalIsLowerBound ? "1 user" : "\(total) users"
            page["pageInfo"] = "Showing \(CountText.grouped(result.users.count)) of \(total)"
            if let next = result.nextCursor {
                page["nextURL"] = URLQuery.path("/_/users", filters.queryItems + [("after", next)])
            }
            if userQuery.cursor != nil { page["firstURL"] = URLQuery.path("/_/users", filters.queryItems) }
            return render(visit, staff, page)
        }
    }

    private func render(_ visit: Visit, _ staff: Staff, _ page: [String: Any]) -> Response {
        env.renderer.page(
            .consoleUsers,
            visit.consoleContext(
                title: "Users", staff: staff, nav: .users, backendName: env.configuration.backendDescription, page))
    }
}

/// The list's filters as read from (and written back to) the query string.
struct UserListFilters {
    var search: String?
    var verified: Bool?
    var disabled: Bool?
    var hasProvider: Bool?
    var tag: String?
    var sort: UserSort

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
        tag = try text("tag")
        sort = try text("sort").flatMap(UserSort.init(rawValue:)) ?? .newest
    }

    func userQuery(perPage: Int, cursor: String?) -> UserQuery {
        UserQuery(
            search: search, perPage: perPage, verified: verified, disabled: disabled,
            hasExternalAuth: hasProvider, sort: sort, cursor: cursor)
    }

    /// The filters as query items, for paging links.
    var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let search { items.append(("q", search)) }
        if let verified { items.append(("verified", verified ? "yes" : "no")) }
        if let disabled { items.append(("disabled", disabled ? "yes" : "no")) }
        if let hasProvider { items.append(("provider", hasProvider ? "yes" : "no")) }
        if let tag { items.append(("tag", tag)) }
        if sort != .newest { items.append(("sort", sort.rawValue)) }
        return items
    }

    var context: [String: Any] {
        [
            "q": search ?? "", "tag": tag ?? "",
            "verifiedAny": verified == nil, "verifiedYes": verified == true, "verifiedNo": verified == false,
            "disabledAny": disabled == nil, "disabledYes": disabled == true, "disabledNo": disabled == false,
            "providerAny": hasProvider == nil, "providerYes": hasProvider == true, "providerNo": hasProvider == false
        ]
    }
}

/// Console URLs built in one place.
enum ConsoleURL {
    static func user(_ id: UserID) -> String {
        "/_/users/" + (id.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id.rawValue)
    }
}
