import Accounts
import AuthCore
import HTTPServer
import ServerSeam

/// `POST /_/users/bulk`: the users list's bulk acts, on the rows ticked or on every account the
/// list's filters match (`matching=yes`). The first post (from the list) answers a page that names
/// the act and the count ("Disable 3 users?") and lists who; only the post from that page, carrying
/// `confirm=yes`, acts — through `UserAdministration.apply`, one audit row per user.
struct ConsoleBulkActions: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.consolePage(.post, "/_/users/bulk", env) { visit, staff in
            guard let action = BulkUserAction(rawValue: try visit.field("action")) else {
                return env.renderer.errorPage(
                    visit, status: 400, title: "Users", heading: "Unknown action",
                    message: "Choose Verify, Disable, Enable, Tag or Delete.")
            }
            var ids = visit.form.values("id").map { UserID($0) }
            let tag = try visit.field("tag").trimmingCharacters(in: .whitespaces)
            let returnURL = Self.listURL(try visit.field("return"))
            let administration = UserAdministration(env: env.accounts, staff: staff, request: visit.request, via: "console")
            // "Select all N matching": the list's filters (its return URL) pick the accounts, once,
            // for the review page; its confirmation names them one by one.
            let matching = try visit.field("matching") == "yes"
            if matching, try visit.field("confirm") != "yes" {
                ids = try await allMatching(returnURL, administration) ?? []
            }
            let limit = matching ? UserAdministration.matchingLimit : UserAdministration.bulkLimit
            var problem: String?
            if ids.isEmpty || ids.count > limit {
                problem = "Select 1 to \(CountText.grouped(limit)) users in the list first."
            } else if action == .tag {
                problem = TestUserOperations.tagProblem(tag)
            }
            if let problem {
                return env.renderer.errorPage(visit, status: 422, title: "Users", heading: "Nothing to do", message: problem)
            }
            guard try visit.field("confirm") == "yes" else {
                return try await review(
                    visit, staff, administration, action, ids: ids, tag: tag, returnURL: returnURL, matching: matching)
            }
            // Deleting asks for a typed confirmation, as deleting one user does.
            if action == .delete, try visit.field("typed").trimmingCharacters(in: .whitespaces) != Self.deletePhrase(ids) {
                return try await review(
                    visit, staff, administration, action, ids: ids, tag: tag, returnURL: returnURL, matching: matching,
                    typedError: "Type “\(Self.deletePhrase(ids))” exactly to delete them.")
            }
            let changed: Int
            do {
                changed = try await administration.apply(action, tag: tag, to: ids, allMatching: matching)
            } catch let error as AuthError {
                // E.g. a backend without disabled accounts: what was done before the refusal is audited.
                return env.renderer.errorPage(
                    visit, status: 409, title: "Users", heading: "\(action.verb) stopped",
                    message: error.pageMessage + " Any user changed before this is listed in the audit log.")
            }
            let separator = returnURL.contains("?") ? "&" : "?"
            return .redirect(to: returnURL + separator + "bulk=\(action.rawValue)&changed=\(changed)")
        }
    }

    /// What deleting `ids` asks to be typed: "delete 3 users".
    static func deletePhrase(_ ids: [UserID]) -> String {
        "delete " + ConsoleUserList.users(Set(ids).count)
    }

    /// Every account the list at `returnURL` shows across its pages, or nil past `matchingLimit`.
    private func allMatching(_ returnURL: String, _ administration: UserAdministration) async throws -> [UserID]? {
        let filters = try UserListFilters(try Parameters(urlEncoded: returnURL.split(separator: "?").dropFirst().first ?? ""))
        return try await administration.allMatching(
            filters.userQuery(perPage: ConsoleUserList.pageSize), taggedWith: filters.tag, locked: filters.locked)
    }

    /// How many of the accounts a review names one by one; the rest it counts.
    static let reviewListed = 50

    /// The confirmation page: the act and count as its heading, the accounts it will touch (the
    /// first `reviewListed` by name), and a form that repeats the request with `confirm=yes` (for a
    /// delete, with the phrase typed).
    private func review(
        _ visit: Visit, _ staff: Staff, _ administration: UserAdministration, _ action: BulkUserAction,
        ids: [UserID], tag: String, returnURL: String, matching: Bool = false, typedError: String? = nil
    ) async throws -> Response {
        let unique = Array(Set(ids))
        var users: [User] = []
        for id in unique.prefix(Self.reviewListed) {
            if let user = try? await administration.user(id) { users.append(user) }
        }
        users.sort { $0.email < $1.email }
        let unlisted = max(0, unique.count - Self.reviewListed)
        let count = users.count + unlisted
        let question =
            action == .tag
            ? "Tag \(ConsoleUserList.users(count)) “\(tag)”?" : "\(action.verb) \(ConsoleUserList.users(count))?"
        return env.renderer.page(
            .consoleUsersBulk,
            visit.consoleContext(
                title: question, staff: staff, nav: .users, backendName: env.configuration.backendDescription,
                [
                    "question": question, "action": action.rawValue, "tag": tag,
                    "confirmLabel": "\(action.verb) \(ConsoleUserList.users(count))",
                    "destructive": action == .delete || action == .disable, "returnURL": returnURL,
                    "none": users.isEmpty, "matching": matching,
                    "users": users.map { ["id": $0.id.rawValue, "email": $0.email] },
                    "unlisted": unlisted == 0 ? false : ["count": CountText.grouped(unlisted)],
                    "unlistedIDs": unique.dropFirst(Self.reviewListed).map(\.rawValue),
                    "typedConfirmation": action == .delete
                        ? ["phrase": "delete " + ConsoleUserList.users(count), "error": typedError ?? ""] : false
                ]), status: typedError == nil ? 200 : 422)
    }

    /// Where to go back to: a users-list URL as the list wrote it, else the list itself.
    static func listURL(_ candidate: String) -> String {
        let isList =
            candidate == "/_/users"
            || candidate.hasPrefix("/_/users?")
                && !candidate.contains(where: { $0 == "\\" || $0.isWhitespace || $0 == "#" })
        return isList ? candidate : "/_/users"
    }
}
