import AuthCore
import Foundation
import Store

extension LocalBackend {
    public func requestEmailChange(newEmail: String, password: String?, session: AuthSession) async throws {
        let user = try await user(for: session)
        try await accounts.requestEmailChange(userID: user.id, newEmail: newEmail, password: password)
    }

    /// The embedded backend asks for no password at confirmation: the link proves the new
    /// address, and the request already checked the password.
    public func confirmEmailChange(token: String, password: String?, keeping: AuthSession?) async throws
        -> EmailChangeConfirmation
    {
        let applied = try await accounts.confirmEmailChange(
            token: token, keepingTokenHash: keeping.map { accessHash($0.accessToken) })
        var kept = applied.keptSession ? keeping : nil
        kept?.user = applied.user.user
        return EmailChangeConfirmation(user: applied.user.user, session: kept)
    }
}
