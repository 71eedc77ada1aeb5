import AuthCore
import Foundation
import ServerSeam
import Store

extension LocalBackend {
    public func requestEmailChange(newEmail: String, password: String?, session: AuthSession) async throws {
        try await accounts.requestEmailChange(userID: try await userID(for: session), newEmail: newEmail, password: password)
    }

    /// The confirmation asks for the account's password, as PocketBase's does: a request may come
    /// with an app's token alone (PocketBase's `request-email-change` takes no password).
    public var confirmsEmailChangeWithPassword: Bool { true }

    public func confirmEmailChange(token: String, password: String?, keeping: AuthSession?) async throws
        -> EmailChangeConfirmation
    {
        let applied = try await accounts.confirmEmailChange(
            token: token, password: password, keepingTokenHash: keeping.map { accessHash($0.accessToken) })
        var kept = applied.keptSession ? keeping : nil
        kept?.user = applied.user.user
        return EmailChangeConfirmation(user: applied.user.user, session: kept)
    }
}

extension LocalBackend: SessionProvenEmailChanges {
    public func requestEmailChange(newEmail: String, session: AuthSession, confirmedBy proof: MailedProof) async throws {
        try await accounts.requestEmailChange(
            userID: try await userID(for: session), newEmail: newEmail, password: nil, provenBy: proof)
    }

    public func awaitsEmailChangeCode(email: String) async throws -> Bool {
        guard let user = try await database.user(email: email),
            let pending = try await database.pendingEmailChangeCode(userID: user.id)
        else { return false }
        return pending.token.consumedAt == nil && pending.token.expiresAt > clock()
    }

    public func confirmEmailChange(email: String, code: String) async throws -> User {
        try await accounts.confirmEmailChange(email: email, code: code).user.user
    }
}
