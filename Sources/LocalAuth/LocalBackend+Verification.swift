import AuthCore
import Foundation
import Secrets
import Store

extension LocalBackend {
    /// A token ready to store and the mail that carries its secret.
    struct PendingVerification: Sendable {
        var token: VerificationTokenRecord
        var mail: OutgoingMail
    }

    public func verifyEmail(email: String, code: String) async throws -> User {
        guard let user = try await database.user(email: email),
            let token = try await database.latestVerificationToken(userID: user.id, purpose: .verifyEmail, kind: .code)
        else { throw AuthError.invalidCode }
        let submitted = keyedHash.hex(code.trimmingCharacters(in: .whitespacesAndNewlines))
        let matches = KeyedHash.constantTimeEquals(submitted, token.secretHash)
        return try await settle(token, secretMatches: matches)
    }

    public func verifyEmailLink(token: String) async throws -> User {
        guard let stored = try await database.linkToken(secretHash: keyedHash.hex(token)),
            stored.purpose == .verifyEmail
        else { throw AuthError.invalidCode }
        return try await settle(stored, secretMatches: true)
    }

    /// Sends a fresh code or link and kills the older ones. Unknown, verified and disabled
    /// addresses get no mail but the same silent answer, so the reply reveals no account. The
    /// cool-down is the web layer's (see `Configuration.resendCooldown`).
    public func resendVerification(email: String) async throws {
        guard let user = try await database.user(email: email), !user.verified, !user.disabled,
            let pending = pendingVerification(userID: user.id, email: user.email, now: clock())
        else { return }
        try await database.replaceVerificationTokens(with: pending.token)
        logger.info("verification resent", metadata: ["user": "\(user.id)"])
        await deliver(pending.mail, userID: user.id)
    }

    /// Applies `TokenCheck` to a stored token: spend it, count a wrong try, or refuse it.
    private func settle(_ token: VerificationTokenRecord, secretMatches: Bool) async throws -> User {
        let now = clock()
        switch TokenCheck.decide(token, secretMatches: secretMatches, now: now, maxAttempts: configuration.maxCodeAttempts) {
        case .refuseExpired:
            throw AuthError.codeExpired
        case .countWrongAttempt:
            if let id = token.id {
                try await database.recordWrongAttempt(tokenID: id, maxAttempts: configuration.maxCodeAttempts)
            }
            logger.notice("wrong verification code", metadata: ["user": "\(token.userID)"])
            throw AuthError.invalidCode
        case .consume:
            guard let id = token.id,
                let user = try await database.consumeEmailVerificationToken(
                    id: id, maxAttempts: configuration.maxCodeAttempts, now: now)
            else { throw AuthError.codeExpired }
            logger.info("email verified", metadata: ["user": "\(user.id)", "via": "\(token.kind.rawValue)"])
            return user.user
        }
    }

    /// A new code or link for the configured mode (nil when verification is off): the secret
    /// goes only into the mail, its keyed hash into the token.
    func pendingVerification(userID: UserID, email: String, now: Date) -> PendingVerification? {
        switch configuration.verification {
        case .none:
            return nil
        case .code:
            let code = SecureRandom.digits(6)
            let token = VerificationTokenRecord(
                userID: userID, purpose: .verifyEmail, kind: .code, secretHash: keyedHash.hex(code),
                expiresAt: now.addingTimeInterval(configuration.codeLifetime), createdAt: now)
            let mail = VerificationMail.code(code, to: email, lifetime: configuration.codeLifetime)
            return PendingVerification(token: token, mail: mail)
        case .link:
            let secret = SecureRandom.token()
            let token = VerificationTokenRecord(
                userID: userID, purpose: .verifyEmail, kind: .link, secretHash: keyedHash.hex(secret),
                expiresAt: now.addingTimeInterval(configuration.linkLifetime), createdAt: now)
            let link = configuration.verificationLink(token: secret)
            let mail = VerificationMail.link(link, to: email, lifetime: configuration.linkLifetime)
            return PendingVerification(token: token, mail: mail)
        }
    }

    /// Mails after the token is committed. A failed send is logged, not thrown: the account and
    /// token exist, "resend" recovers, and unknown addresses (which send nothing) must answer alike.
    func deliver(_ mail: OutgoingMail, userID: UserID) async {
        do {
            try await mailer.send(mail)
        } catch {
            logger.error("verification mail not sent", metadata: ["user": "\(userID)", "error": "\(type(of: error))"])
        }
    }
}
