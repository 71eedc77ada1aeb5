import Accounts
import AuthCore
import Foundation

extension ConsoleUserPage {
    /// The address change the person asked for and has not confirmed (issue 49, item 9): support
    /// staff asked "I changed my email and can't sign in" see where it is going and until when.
    func waitingEmailContext(of user: User, _ administration: UserAdministration) async throws -> Any {
        guard let waiting = try await administration.waitingEmailChange(of: user) else { return false }
        return ["newEmail": waiting.newEmail, "until": DisplayDate.dateTime(waiting.expiresAt)]
    }
}
