import AuthCore
import Foundation
import Secrets
import ServerSeam
import Store

extension LocalAccounts {
    /// Checks the password, then mails the new address a single-use link (its keyed hash stored
    /// with the address in one transaction, older pending changes superseded) and the old address a
    /// notice. A new address another account has gets a note instead of a link, and the old one the
    /// same notice, so neither the answer nor the old mailbox tells taken from free.
    /// `provenBy`: the asker's live session was the proof (Descope's `update/email`): no password is
    /// asked now or at confirmation, and the new address gets that code or link.
    func requestEmailChange(userID: UserID, newEmail: String, password: String?, provenBy proof: MailedProof? = nil)
        async throws
    {
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
        let now = self.now(for: userID)
        if try await database.user(email: newEmail) != nil {
            logger.info("email change to a taken address", metadata: ["user": "\(userID)"])
            await deliver(EmailChangeMail.addressTaken(to: newEmail), userID: userID)
        } else {
            let (token, mail) = emailChangeProof(proof, userID: userID, email: user.email, newEmail: newEmail, now: now)
            try await database.insertEmailChange(token, newEmail: newEmail, provenBySession: proof != nil)
            logger.info("email change requested", metadata: ["user": "\(userID)", "proof": "\(proof?.name ?? "password")"])
            await deliver(mail, userID: userID)
        }
        await deliver(EmailChangeMail.notice(to: user.email, newAddress: newEmail), userID: userID)
    }

    /// Applies the change a mailed link stands for (see `AppDatabase.applyEmailChange`), after the
    /// account's password where it has one: the link goes to the new address, which whoever asked
    /// controls, so the link alone must not move an account (a stolen app token could ask). Each
    /// password try spends one of the link's `maxCodeAttempts` tries, so a stolen link cannot be
    /// used to guess the password. Unknown token: `.invalidCode`; spent, superseded, expired or out
    /// of tries: `.codeExpired`; no password: `.validation` on `password`; a wrong one:
    /// `.invalidCredentials`; the address taken
    /// meanwhile: `.emailExists`, with the token still unspent.
    func confirmEmailChange(token: String, password: String?, keepingTokenHash: String?) async throws -> AppliedEmailChange {
        guard let pending = try await database.pendingEmailChange(secretHash: keyedHash.hex(token)),
            let id = pending.token.id
        else { throw AuthError.invalidCode }
        let now = self.now(for: pending.token.userID)
        guard pending.token.consumedAt == nil, pending.token.expiresAt > now else { throw AuthError.codeExpired }
        // A session-proven change (Descope's `update/email`) is confirmed by its link alone.
        if !pending.provenBySession, let passwordHash = try await database.user(id: pending.token.userID)?.passwordHash {
            guard let password, !password.isEmpty else {
                throw AuthError.validation([FieldError(field: "password", message: "Enter your password to confirm.")])
            }
            guard try await database.claimVerificationAttempt(tokenID: id, maxAttempts: configuration.maxCodeAttempts, now: now)
            else { throw AuthError.codeExpired }
            guard await hasher.verify(password, against: passwordHash) else {
                logger.notice("email change refused", metadata: ["user": "\(pending.token.userID)", "reason": "wrong password"])
                throw AuthError.invalidCredentials
            }
        }
        guard let applied = try await database.applyEmailChange(tokenID: id, keepingTokenHash: keepingTokenHash, now: now)
        else { throw AuthError.codeExpired }
        logger.info("email changed", metadata: ["user": "\(applied.user.id)", "keptSession": "\(applied.keptSession)"])
        return applied
    }

    /// Confirms a session-proven change by the code mailed to its new address, for the account now
    /// at `email`: the code's tries count as a verification code's (`maxCodeAttempts`).
    func confirmEmailChange(email: String, code: String) async throws -> AppliedEmailChange {
        guard let user = try await database.user(email: email),
            let pending = try await database.pendingEmailChangeCode(userID: user.id), let id = pending.token.id
        else { throw AuthError.invalidCode }
        let now = self.now(for: user.id)
        let maxAttempts = configuration.maxCodeAttempts
        guard TokenCheck.decide(pending.token, secretMatches: false, now: now, maxAttempts: maxAttempts) != .refuseExpired,
            try await database.claimVerificationAttempt(tokenID: id, maxAttempts: maxAttempts, now: now)
        else { throw AuthError.codeExpired }
        let submitted = keyedHash.hex(code.trimmingCharacters(in: .whitespacesAndNewlines))
        guard KeyedHash.constantTimeEquals(submitted, pending.token.secretHash) else {
            logger.notice("wrong email change code", metadata: ["user": "\(user.id)"])
            throw AuthError.invalidCode
        }
        guard let applied = try await database.applyEmailChange(tokenID: id, keepingTokenHash: nil, now: now)
        else { throw AuthError.codeExpired }
        logger.info("email changed", metadata: ["user": "\(applied.user.id)", "proof": "code"])
        return applied
    }

    /// The token that stores a change's secret and the mail that carries it: the pages' link
    /// (confirmed with the password), or a session-proven change's code or link.
    private func emailChangeProof(
        _ proof: MailedProof?, userID: UserID, email: String, newEmail: String, now: Date
    ) -> (VerificationTokenRecord, OutgoingMail) {
        if proof == .code {
            let code = configuration.newCode(for: newEmail)
            let token = VerificationTokenRecord(
                userID: userID, purpose: .changeEmail, kind: .code, secretHash: keyedHash.hex(code),
                expiresAt: now.addingTimeInterval(configuration.codeLifetime), createdAt: now)
            return (token, EmailChangeMail.code(code, to: newEmail, lifetime: configuration.codeLifetime))
        }
        let expiresAt = now.addingTimeInterval(configuration.linkLifetime)
        let secret = LinkToken.make(
            .emailChange, userID: userID, email: email, expiresAt: expiresAt, newEmail: newEmail, signer: linkTokens)
        let token = VerificationTokenRecord(
            userID: userID, purpose: .changeEmail, kind: .link, secretHash: keyedHash.hex(secret),
            expiresAt: expiresAt, createdAt: now)
        // A session-proven link also carries its secret as `t`, where Descope's apps read it; it
        // opens the app's address where the app named one.
        let link: String
        switch proof {
        case .link(let appURL?): link = LinkOpening.app(appURL).address(token: secret, page: configuration.page)
        case .link(nil): link = configuration.page("/auth/confirm-email?t=\(secret)&token=\(secret)")
        case .code, nil: link = configuration.page("/auth/confirm-email?token=\(secret)")
        }
        return (token, EmailChangeMail.confirmation(link, to: newEmail, lifetime: configuration.linkLifetime))
    }
}
