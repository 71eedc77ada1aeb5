import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The user page's sign-in back-offs (issue 49, item 1): each address whose tries at this
/// account's password are refused for now, with its tries and until when, and **Unlock**.
extension ConsoleUserPage {
    func registerLockouts(on router: inout Router) {
        router.consolePage(.post, "/_/users/:id/unlock", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            let source = try visit.form.single("source").flatMap { $0.isEmpty ? nil : $0 }
            return try await perform(visit, staff, user, notice: .userUnlocked) { operations in
                try await operations.unlock(user, source: source)
            }
        }
    }

    /// The back-offs running now, as the page lists them; false when there are none.
    func lockoutsContext(of user: User, _ administration: UserAdministration) async throws -> Any {
        let lockouts = try await administration.lockouts(of: user)
        guard !lockouts.isEmpty else { return false }
        return [
            "rows": lockouts.map { lockout in
                [
                    "source": lockout.source, "tries": lockout.tries, "until": DisplayDate.dateTime(lockout.until)
                ] as [String: Any]
            },
            "unlockURL": ConsoleURL.user(user.id) + "/unlock"
        ] as [String: Any]
    }
}
