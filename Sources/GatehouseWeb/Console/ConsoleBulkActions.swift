import Accounts
import AuthCore
import HTTPServer
import ServerSeam

/// `POST /_/users/bulk`: the users list's bulk acts. The first post (from the list) answers a page
/// that names the act and the count ("Disable 3 users?") and lists who; only the post from that
/// page, carrying `confirm=yes`, acts — through `UserAdministration.apply`, one audit row per user.
struct ConsoleBulkActions: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.consolePage(.post, "/_/users/bulk", env) { visit, staff in
            guard let action = BulkUserAction(rawValue: try visit.field("action")) else {
                return env.renderer.errorPage(
                    visit, status: 400, title: "Users", heading: "Unknown action",
                    message: "Choose Verify, Disable, Enable, Tag or Delete.")
            }
            let ids = visit.form.values("id").map { UserID($0) }
            let tag = try visit.field("tag").trimmingCharacters(in: .whitespaces)
            let returnURL = Self.listURL(try visit.field("return"))
            let administration = UserAdministration(env: env.accounts, staff: staff, request: visit.request, via: "console")
            var problem: String?
            if ids.isEmpty || ids.count > UserAdministration.bulkLimit {
                problem = "Select 1 to \(UserAdministration.bulkLimit) users in the list first."
            } else if action == .tag {
                problem = TestUserOperations.tagProblem(tag)
            }
            if let problem {
                return env.renderer.errorPage(visit, status: 422, title: "Users", heading: "Nothing to do", message: problem)
            }
            guard try visit.field("confirm") == "yes" else {
                return try await review(visit, staff, administration, action, ids: ids, tag: tag, returnURL: returnURL)
            }
            // Deleting asks for a typed confirmation, as deleting one user does.
            if action == .delete, try visit.field("typed").trimmingCharacters(in: .whitespaces) != Self.deletePhrase(ids) {
                return try await review(
                    visit, staff, administration, action, ids: ids, tag: tag, returnURL: returnURL,
                    typedError: "Type “\(Self.deletePhrase(ids))” exactly to delete them.")
            }
            let changed: Int
            do {
                changed = try await administration.apply(action, tag: tag, to: ids)
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

    /// The confirmation page: the act and count as its heading, the accounts it will touch, and a
    /// form that repeats the request with `confirm=yes` (for a delete, with the phrase typed).
    private func review(
        _ visit: Visit, _ staff: Staff, _ administration: UserAdministration, _ action: BulkUserAction,
        ids: [UserID], tag: String, returnURL: String, typedError: String? = nil
    ) async throws -> Response {
        var users: [User] = []
        for id in Set(ids) {
            if let user = try? await administration.user(id) { users.append(user) }
        }
        users.sort { $0.email < $1.email }
        let question =
            action == .tag
            ? "Tag \(ConsoleUserList.users(users.count)) “\(tag)”?" : "\(action.verb) \(ConsoleUserList.users(users.count))?"
        return env.renderer.page(
            .consoleUsersBulk,
            visit.consoleContext(
                title: question, staff: staff, nav: .users, backendName: env.configuration.backendDescription,
                [
                    "question": question, "action": action.rawValue, "tag": tag,
                    "confirmLabel": "\(action.verb) \(ConsoleUserList.users(users.count))",
                    "destructive": action == .delete || action == .disable, "returnURL": returnURL,
                    "none": users.isEmpty,
                    "users": users.map { ["id": $0.id.rawValue, "email": $0.email] },
                    "typedConfirmation": action == .delete
                        ? ["phrase": Self.deletePhrase(users.map(\.id)), "error": typedError ?? ""] : false
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
