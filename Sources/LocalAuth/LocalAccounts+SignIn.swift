import AuthCore
import Foundation
import Store

extension LocalAccounts {
    /// Every failing path costs one password verification and throws `.invalidCredentials`, so
    /// neither the answer nor its timing tells unknown and wrong apart (ASVS 6.3); a disabled
    /// account is named (`AccountDisabled`) only after its right password. An unverified account
    /// is refused while addresses are verified, unless `admitUnverified`.
    public func signIn(email: String, password: String, admitUnverified: Bool = false) async throws -> User {
        guard let user = try await database.user(email: email), let passwordHash = user.passwordHash else {
            await hasher.dummyVerify(password)
            logger.notice("sign-in failed", metadata: ["reason": "unknown account"])
            throw AuthError.invalidCredentials
        }
        guard await hasher.verify(password, against: passwordHash) else {
            logger.notice("sign-in failed", metadata: ["user": "\(user.id)", "reason": "wrong password"])
            throw AuthError.invalidCredentials
        }
        guard !user.disabled else {
            logger.notice("sign-in failed", metadata: ["user": "\(user.id)", "reason": "disabled"])
            throw AccountDisabled()
        }
        if hasher.needsRehash(passwordHash) {
            await upgradeHash(of: user.id, from: passwordHash, password: password)
        }
        if !user.verified && configuration.verification != .none && !admitUnverified {
            throw AuthError.emailNotVerified(email: user.email)
        }
        logger.info("signed in", metadata: ["user": "\(user.id)"])
        return user.user
    }

    /// Replaces a bcrypt or outdated argon2 hash with today's argon2id while the plain password is
    /// at hand. Best effort: a failure is logged and the sign-in still succeeds.
    private func upgradeHash(of userID: UserID, from old: String, password: String) async {
        do {
            let new = try await hasher.hash(password)
            try await database.replacePasswordHash(userID: userID, from: old, to: new, at: clock())
            logger.info("password rehashed", metadata: ["user": "\(userID)"])
        } catch {
            logger.warning("password rehash failed", metadata: ["user": "\(userID)", "error": "\(type(of: error))"])
        }
    }
}
