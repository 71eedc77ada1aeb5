import AuthCore
import Foundation
import Secrets
import Store

extension LocalAccounts {
    public func externalAuths(userID: UserID) async throws -> [ExternalAuth] {
        try await database.externalAuths(userID: userID)
    }

    /// New accounts made here have no password; their email counts as verified only when the
    /// provider said so. A provider that reports no email gets a placeholder under `.invalid`.
    public func signIn(with identity: ExternalIdentity, allowCreate: Bool) async throws -> (User, ExternalSignIn.Outcome) {
        let now = clock()
        var newUser: UserRecord?
        if allowCreate {
            var profile = Profile()
            if let name = identity.name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty,
                ProfileRules.nameProblem(name) == nil
            {
                profile.fields["name"] = .string(name)
            }
            if let avatar = identity.avatarURL, avatar.hasPrefix("https://") { profile.fields["avatar_url"] = .string(avatar) }
            let email = identity.email.flatMap { EmailAddress.isPlausible($0) ? $0 : nil }
            let placeholder = "\(identity.provider)-\(keyedHash.hex(identity.subject).prefix(16))@external.invalid"
            newUser = UserRecord(
                id: UserID(SecureRandom.userID()), email: email ?? placeholder, passwordHash: nil,
                verified: email != nil && identity.emailVerified, profile: profile, createdAt: now, updatedAt: now)
        }
        let (record, outcome) = try await database.signInExternal(identity, newUser: newUser, at: now)
        guard !record.disabled else { throw AuthError.invalidCredentials }
        if outcome == .created {
            logger.info("account created", metadata: ["user": "\(record.id)", "provider": "\(identity.provider)"])
        }
        return (record.user, outcome)
    }

    public func link(_ identity: ExternalIdentity, to userID: UserID) async throws -> ExternalAuth {
        try await database.linkExternal(identity, to: userID, at: clock())
    }

    public func unlink(provider: String, from userID: UserID) async throws {
        try await database.unlinkExternal(provider: provider, from: userID)
    }
}
