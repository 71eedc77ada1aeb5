import AuthCore
import Foundation
import Secrets
import ServerSeam
import Store

extension LocalAccounts {
    /// A token ready to store and the mail that carries its secret; `linkTwin` is the same proof
    /// as a link, in code mode for callers that confirm with a link's token.
    struct PendingVerification: Sendable {
        var token: VerificationTokenRecord
        var linkTwin: VerificationTokenRecord? = nil
        var mail: OutgoingMail

        /// Binds the code and its link twin to the sign-up (`AddressProof`): proving the address with
        /// either keeps what the account was made with.
        mutating func bindToSignUp() {
            token.binding = .signUp
            linkTwin?.binding = .signUp
        }
    }

    public func verifyEmail(email: String, code: String) async throws -> User {
        guard let user = try await database.user(email: email),
            let token = try await database.latestVerificationToken(userID: user.id, purpose: .verifyEmail, kind: .code)
        else { throw AuthError.invalidCode }
        let submitted = keyedHash.hex(code.trimmingCharacters(in: .whitespacesAndNewlines))
        return try await settle(token) { KeyedHash.constantTimeEquals(submitted, token.secretHash) }
    }

    public func verifyEmailLink(token: String) async throws -> User {
        guard let stored = try await database.linkToken(secretHash: keyedHash.hex(token)),
            stored.purpose == .verifyEmail
        else { throw AuthError.invalidCode }
        return try await settle(stored) { true }
    }

    /// Sends a fresh code or link and kills the older ones; `withLink` adds the link to a code (the
    /// mail then carries both, and spending either spends the other). Unknown, verified and
    /// disabled addresses get no mail but the same silent answer, so the reply reveals no account.
    /// The cool-down is the web layer's (see `Configuration.resendCooldown`).
    public func resendVerification(email: String, withLink: Bool = false) async throws {
        guard let user = try await database.user(email: email), !user.verified, !user.disabled,
            case let now = self.now(for: user.id),
            var pending = pendingVerification(userID: user.id, email: user.email, now: now, withLink: withLink)
        else { return }
        // A resend inside the sign-up mail's cool-down (one the server holds back when its limits are
        // on) stands for the sign-up as its mail did; any later one keeps nothing (`AddressProof`).
        // Where the sign-up mailed nothing (its app asks: `WayInPolicy.signUpMail`), the app's first
        // mail asked inside that cool-down is the sign-up's mail, with its "this wasn't me" link.
        let cooldown = configuration.resendCooldown
        var disown: VerificationTokenRecord?
        if let latest = try await database.latestVerificationToken(
            userID: user.id, purpose: .verifyEmail, kind: pending.token.kind)
        {
            if latest.binding == .signUp, latest.consumedAt == nil, now.timeIntervalSince(latest.createdAt) < cooldown {
                pending.bindToSignUp()
            }
        } else if now.timeIntervalSince(user.createdAt) < cooldown,
            try await database.latestVerificationToken(userID: user.id, purpose: .verifyEmail, kind: .link) == nil
        {
            disown = makeSignUpMail(&pending, userID: user.id, now: now)
        }
        try await database.replaceVerificationTokens(with: pending.token, twin: pending.linkTwin, disown: disown)
        logger.info("verification resent", metadata: ["user": "\(user.id)"])
        await deliver(pending.mail, userID: user.id)
    }

    /// Applies `TokenCheck` to a stored token: spend it, count a wrong try, or refuse it. The try
    /// is claimed in the store before `secretMatches` is asked, so parallel guesses can never
    /// compare more than `maxCodeAttempts` codes against one token.
    private func settle(_ token: VerificationTokenRecord, secretMatches: () -> Bool) async throws -> User {
        let now = self.now(for: token.userID)
        let maxAttempts = configuration.maxCodeAttempts
        // The first decision only asks whether the token is live; the secret is not looked at yet.
        guard TokenCheck.decide(token, secretMatches: false, now: now, maxAttempts: maxAttempts) != .refuseExpired,
            let id = token.id, try await database.claimVerificationAttempt(tokenID: id, maxAttempts: maxAttempts, now: now)
        else { throw AuthError.codeExpired }
        switch TokenCheck.decide(token, secretMatches: secretMatches(), now: now, maxAttempts: maxAttempts) {
        case .refuseExpired:
            throw AuthError.codeExpired
        case .countWrongAttempt:
            logger.notice("wrong verification code", metadata: ["user": "\(token.userID)"])
            throw AuthError.invalidCode
        case .consume:
            guard let user = try await database.consumeEmailVerificationToken(id: id, now: now) else {
                throw AuthError.codeExpired
            }
            logger.info("email verified", metadata: ["user": "\(user.id)", "via": "\(token.kind.rawValue)"])
            return user.user
        }
    }

    /// A new code or link for the configured mode (nil when verification is off), in code mode
    /// with the link as well when `withLink`: the secret goes only into the mail, its keyed hash
    /// into the token.
    func pendingVerification(userID: UserID, email: String, now: Date, withLink: Bool = false) -> PendingVerification? {
        switch configuration.verification {
        case .none:
            return nil
        case .code:
            let code = configuration.newCode(for: email)
            let token = VerificationTokenRecord(
                userID: userID, purpose: .verifyEmail, kind: .code, secretHash: keyedHash.hex(code),
                expiresAt: now.addingTimeInterval(configuration.codeLifetime), createdAt: now)
            guard withLink else {
                return PendingVerification(
                    token: token, mail: VerificationMail.code(code, to: email, lifetime: configuration.codeLifetime))
            }
            // The link lives as long as the code it doubles.
            let (twin, link) = verificationLink(userID: userID, email: email, now: now, lifetime: configuration.codeLifetime)
            let mail = VerificationMail.code(code, link: link, to: email, lifetime: configuration.codeLifetime)
            return PendingVerification(token: token, linkTwin: twin, mail: mail)
        case .link:
            let (token, link) = verificationLink(userID: userID, email: email, now: now, lifetime: configuration.linkLifetime)
            let mail = VerificationMail.link(link, to: email, lifetime: configuration.linkLifetime)
            return PendingVerification(token: token, mail: mail)
        }
    }

    /// A verification link and the token that stores its keyed hash.
    private func verificationLink(
        userID: UserID, email: String, now: Date, lifetime: TimeInterval
    ) -> (token: VerificationTokenRecord, link: String) {
        let (token, secret) = verificationLinkToken(userID: userID, email: email, now: now, lifetime: lifetime)
        return (token, configuration.verificationLink(token: secret))
    }

    /// A verification link's secret and the token that stores its keyed hash.
    func verificationLinkToken(
        userID: UserID, email: String, now: Date, lifetime: TimeInterval
    ) -> (token: VerificationTokenRecord, secret: String) {
        let expiresAt = now.addingTimeInterval(lifetime)
        let secret = LinkToken.make(.verification, userID: userID, email: email, expiresAt: expiresAt, signer: linkTokens)
        let token = VerificationTokenRecord(
            userID: userID, purpose: .verifyEmail, kind: .link, secretHash: keyedHash.hex(secret),
            expiresAt: expiresAt, createdAt: now)
        return (token, secret)
    }

    /// Mails after the token is committed. A failed send is logged, not thrown: the account and
    /// token exist, "resend" recovers, and unknown addresses (which send nothing) must answer alike.
    func deliver(_ mail: OutgoingMail, userID: UserID) async {
        do {
            try await mailer.send(MailBrand.current.withLogo(mail))
        } catch {
            logger.error("verification mail not sent", metadata: ["user": "\(userID)", "error": "\(type(of: error))"])
        }
    }
}
