import AuthCore
import Foundation
import PasswordStrength
import Secrets
import Store

extension LocalAccounts {
    /// How long a mailed reset link (and code) works.
    public static let passwordResetLifetime: TimeInterval = 30 * 60

    /// Mails a reset link (and, in code mode, a code) and kills older ones. Unknown and disabled
    /// addresses get no mail and the same silent answer; the web layer evens out the timing and
    /// throttles per address and source. Accounts without a password (provider sign-in only) can
    /// set one this way: the mailed secret proves the address.
    public func requestPasswordReset(email: String) async throws {
        guard let user = try await database.user(email: email), !user.disabled else {
            logger.notice("password reset not sent", metadata: ["reason": "unknown or disabled account"])
            return
        }
        let now = self.now(for: user.id)
        let expiresAt = now.addingTimeInterval(Self.passwordResetLifetime)
        let (link, secret) = resetLinkToken(userID: user.id, email: user.email, now: now)
        var tokens = [link]
        var code: String?
        if configuration.verification == .code {
            let digits = configuration.newCode(for: user.email)
            code = digits
            tokens.append(
                VerificationTokenRecord(
                    userID: user.id, purpose: .resetPassword, kind: .code, secretHash: keyedHash.hex(digits),
                    expiresAt: expiresAt, createdAt: now))
        }
        try await database.replacePasswordResetTokens(with: tokens, at: now)
        logger.info("password reset requested", metadata: ["user": "\(user.id)"])
        let mail = VerificationMail.passwordReset(
            link: configuration.page("/auth/reset-password?token=\(secret)"), code: code, to: user.email,
            lifetime: Self.passwordResetLifetime)
        await deliver(mail, userID: user.id)
    }

    /// A reset link's secret (it lives `passwordResetLifetime`) and the token storing its keyed hash.
    func resetLinkToken(userID: UserID, email: String, now: Date) -> (token: VerificationTokenRecord, secret: String) {
        let expiresAt = now.addingTimeInterval(Self.passwordResetLifetime)
        let secret = LinkToken.make(.passwordReset, userID: userID, email: email, expiresAt: expiresAt, signer: linkTokens)
        let token = VerificationTokenRecord(
            userID: userID, purpose: .resetPassword, kind: .link, secretHash: keyedHash.hex(secret),
            expiresAt: expiresAt, createdAt: now)
        return (token, secret)
    }

    /// Trades the newest mailed code of `email`'s account for a fresh link token (the mailed link
    /// dies with it). Each wrong try counts; after `maxCodeAttempts` the code is dead even for the
    /// right digits. Unknown addresses fail like wrong codes.
    public func exchangePasswordResetCode(email: String, code: String) async throws -> String {
        guard let user = try await database.user(email: email), !user.disabled,
            let token = try await database.latestVerificationToken(userID: user.id, purpose: .resetPassword, kind: .code),
            let id = token.id
        else { throw AuthError.invalidCode }
        let now = self.now(for: user.id)
        let maxAttempts = configuration.maxCodeAttempts
        // The try is claimed before the code is compared, so parallel guesses get no more tries.
        guard TokenCheck.decide(token, secretMatches: false, now: now, maxAttempts: maxAttempts) != .refuseExpired,
            try await database.claimVerificationAttempt(tokenID: id, maxAttempts: maxAttempts, now: now)
        else { throw AuthError.codeExpired }
        let submitted = keyedHash.hex(code.trimmingCharacters(in: .whitespacesAndNewlines))
        let matches = KeyedHash.constantTimeEquals(submitted, token.secretHash)
        switch TokenCheck.decide(token, secretMatches: matches, now: now, maxAttempts: maxAttempts) {
        case .refuseExpired:
            throw AuthError.codeExpired
        case .countWrongAttempt:
            logger.notice("wrong password reset code", metadata: ["user": "\(user.id)"])
            throw AuthError.invalidCode
        case .consume:
            let secret = LinkToken.make(
                .passwordReset, userID: user.id, email: user.email, expiresAt: token.expiresAt, signer: linkTokens)
            let replacement = VerificationTokenRecord(
                userID: user.id, purpose: .resetPassword, kind: .link, secretHash: keyedHash.hex(secret),
                expiresAt: token.expiresAt, createdAt: now)
            guard try await database.exchangePasswordResetCode(id: id, for: replacement, at: now) else {
                throw AuthError.codeExpired
            }
            return secret
        }
    }

    /// Sets a new password with a live reset token and ends every session of the account (the token
    /// says whose account; it works once). A password the rules refuse — judged on the account's
    /// address and name, as on sign-up and change — spends nothing.
    public func resetPassword(token: String, newPassword: String) async throws -> User {
        guard let stored = try await database.linkToken(secretHash: keyedHash.hex(token)),
            stored.purpose == .resetPassword, let id = stored.id
        else { throw AuthError.invalidCode }
        let now = self.now(for: stored.userID)
        guard TokenCheck.decide(stored, secretMatches: true, now: now, maxAttempts: configuration.maxCodeAttempts) == .consume
        else { throw AuthError.codeExpired }
        let owner = try await database.user(id: stored.userID)
        let known = owner.map { PasswordRules.userInputs(emails: [$0.email], name: $0.profile.name) } ?? []
        if let problem = configuration.passwordRules.problem(with: newPassword, userInputs: known) {
            throw AuthError.validation([FieldError(field: "password", message: problem)])
        }
        let hash = try await hasher.hash(newPassword)
        guard let user = try await database.resetPassword(tokenID: id, passwordHash: hash, at: now) else {
            throw AuthError.codeExpired
        }
        logger.info("password reset", metadata: ["user": "\(user.id)"])
        return user.user
    }

    /// Whether `token` would be taken by `resetPassword` now (the password aside); spends nothing.
    public func resetTokenIsLive(_ token: String) async throws -> Bool {
        guard let stored = try await database.linkToken(secretHash: keyedHash.hex(token)), stored.purpose == .resetPassword
        else { return false }
        return TokenCheck.decide(
            stored, secretMatches: true, now: now(for: stored.userID), maxAttempts: configuration.maxCodeAttempts)
            == .consume
    }

    /// Replaces the password after checking the current one, and revokes the account's sessions but
    /// `keeping` (see `AppDatabase.changePassword`). A wrong current password — or none, for an
    /// account that signs in with a provider only — is `.invalidCredentials`.
    public func changePassword(
        userID: UserID, currentPassword: String, newPassword: String, keeping sessionID: Int64,
        leavingBrowserSessions: Bool
    ) async throws {
        guard let user = try await database.user(id: userID), !user.disabled else { throw AuthError.sessionExpired }
        guard let currentHash = user.passwordHash else {
            await hasher.dummyVerify(currentPassword)
            throw AuthError.invalidCredentials
        }
        guard await hasher.verify(currentPassword, against: currentHash) else {
            logger.notice("password change refused", metadata: ["user": "\(userID)", "reason": "wrong password"])
            throw AuthError.invalidCredentials
        }
        let known = PasswordRules.userInputs(emails: [user.email], name: user.profile.name)
        if let problem = configuration.passwordRules.problem(with: newPassword, userInputs: known) {
            throw AuthError.validation([FieldError(field: "password", message: problem)])
        }
        let newHash = try await hasher.hash(newPassword)
        guard
            try await database.changePassword(
                userID: userID, from: currentHash, to: newHash, keeping: sessionID,
                leavingBrowserSessions: leavingBrowserSessions, at: clock())
        else {
            // Changed by someone else between the check and the write: the checked password is stale.
            throw AuthError.invalidCredentials
        }
        logger.info("password changed", metadata: ["user": "\(userID)"])
    }
}
