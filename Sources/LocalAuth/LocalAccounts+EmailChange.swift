import AuthCore
import Foundation
import Secrets
import Store

extension LocalAccounts {
    /// Checks the password, then mails the new address a single-use link (its keyed hash stored
    /// with the address in one transaction, older pending changes superseded) and the old address a
    /// notice. A new address another account has gets a note instead of a link, and the old one the
    /// same notice, so neither the answer nor the old mailbox tells taken from free.
    func requestEmailChange(userID: UserID, newEmail: String, password: String?) async throws {
        guard let user = try await database.user(id: userID), !user.disabled else { throw AuthError.sessionExpired }
        let newEmail = newEmail.trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(newEmail) else {
            throw AuthError.validation([FieldError(field: "email", message: "Enter a valid email address.")])
        }
        guard EmailAddress.normalize(newEmail) != user.emailNormalized else {
            throw AuthError.validation([FieldError(field: "email", message: "That is already your email address.")])
        }
        if let password {
            guard let passwordHash = user.passwordHash else {
                await hasher.dummyVerify(password)
                throw AuthError.invalidCredentials
            }
            guard await hasher.verify(password, against: passwordHash) else {
                logger.notice("email change refused", metadata: ["user": "\(userID)", "reason": "wrong password"])
                throw AuthError.invalidCredentials
            }
        }
        let now = clock()
        if try await database.user(email: newEmail) != nil {
            logger.info("email change to a taken address", metadata: ["user": "\(userID)"])
            await deliver(EmailChangeMail.addressTaken(to: newEmail), userID: userID)
        } else {
            let expiresAt = now.addingTimeInterval(configuration.linkLifetime)
            let secret = LinkToken.make(
                .emailChange, userID: userID, email: user.email, expiresAt: expiresAt, newEmail: newEmail, signer: linkTokens)
            let token = VerificationTokenRecord(
                userID: userID, purpose: .changeEmail, kind: .link, secretHash: keyedHash.hex(secret),
                expiresAt: expiresAt, createdAt: now)
            try await database.insertEmailChange(token, newEmail: newEmail)
            logger.info("email change requested", metadata: ["user": "\(userID)"])
            let link = configuration.page("/auth/confirm-email?token=\(secret)")
            await deliver(EmailChangeMail.confirmation(link, to: newEmail, lifetime: configuration.linkLifetime), userID: userID)
        }
        await deliver(EmailChangeMail.notice(to: user.email, newAddress: newEmail), userID: userID)
    }

    /// Applies the change a mailed link stands for (see `AppDatabase.applyEmailChange`). Unknown
    /// token: `.invalidCode`; spent, superseded or expired: `.codeExpired`; the address taken
    /// meanwhile: `.emailExists`, with the token still unspent.
    func confirmEmailChange(token: String, keepingTokenHash: String?) async throws -> AppliedEmailChange {
        guard let pending = try await database.pendingEmailChange(secretHash: keyedHash.hex(token)),
            let id = pending.token.id
        else { throw AuthError.invalidCode }
        let now = clock()
        guard pending.token.consumedAt == nil, pending.token.expiresAt > now,
            let applied = try await database.applyEmailChange(tokenID: id, keepingTokenHash: keepingTokenHash, now: now)
        else { throw AuthError.codeExpired }
        logger.info("email changed", metadata: ["user": "\(applied.user.id)", "keptSession": "\(applied.keptSession)"])
        return applied
    }
}
