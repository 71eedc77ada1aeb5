import AuthCore
import Foundation
import Secrets
import ServerSeam
import Store

extension LocalAccounts {
    /// How long a magic link works (a sign-in link is short-lived, unlike a verification link).
    static let magicLinkLifetime: TimeInterval = 10 * 60

    /// Stores a sign-in code for `email` and mails it; returns the otp id to sign in with. Every
    /// address gets a row and an id, so the answer and the work are the same for all; only an
    /// enabled account — or, with `allowSignUp`, an address with no account — gets the mail. The
    /// resend cool-down is the web layer's (per address whether or not an account exists).
    /// `signUpProfile`: what the account a right code creates gets (Descope's sign-up `user`).
    public func requestEmailOTP(email: String, allowSignUp: Bool, signUpProfile: Profile? = nil) async throws -> String {
        let issued = try await issueEmailOTP(email: email, allowSignUp: allowSignUp, signUpProfile: signUpProfile)
        if let recipient = issued.recipient {
            await deliverPasswordless(
                PasswordlessMail.code(issued.code, to: recipient.email, lifetime: configuration.codeLifetime), recipient.id)
        }
        return issued.otpID
    }

    /// Stores a sign-in code for `email` (any address: see `requestEmailOTP`); its id, the code,
    /// and who may be mailed it.
    func issueEmailOTP(email: String, allowSignUp: Bool, signUpProfile: Profile? = nil) async throws
        -> (otpID: String, code: String, recipient: (email: String, id: UserID?)?)
    {
        let email = try Self.passwordlessAddress(email)
        let otpID = SecureRandom.token()
        let code = configuration.newCode(for: email)
        let recipient = try await storeSignInToken(
            kind: .code, email: email, allowSignUp: allowSignUp, lookupHash: otpLookupHash(otpID),
            codeHash: codeHash(otpID: otpID, code: code), browserBinding: nil,
            lifetime: configuration.codeLifetime, signUpProfile: signUpProfile)
        return (otpID, code, recipient)
    }

    /// A right code signs in (and verifies the address); a wrong one counts one of the code's tries.
    /// Unknown ids and codes of addresses without an account read like wrong codes.
    /// With `guest`, an address without an account upgrades that guest account instead of making one.
    public func signIn(otpID: String, code: String, upgrading guest: UserID? = nil) async throws -> User {
        let (token, id, now) = try await checkedCode(otpID: otpID, code: code)
        return try await spend(token, id: id, now: now, via: "code", guest: guest)
    }

    /// The live token a right code names, not spent; each check takes one of the code's tries.
    /// Wrong: `.invalidCode` (unknown ids alike); dead or out of tries: `.codeExpired`.
    func checkedCode(otpID: String, code: String) async throws -> (SignInTokenRecord, Int64, Date) {
        let code = code.filter { !$0.isWhitespace }
        guard let token = try await database.signInToken(lookupHash: otpLookupHash(otpID)), token.kind == .code,
            let id = token.id, let storedHash = token.codeHash
        else { throw AuthError.invalidCode }
        let now = self.now(for: token.userID)
        let maxAttempts = configuration.maxCodeAttempts
        guard TokenCheck.decide(token, secretMatches: false, now: now, maxAttempts: maxAttempts) != .refuseExpired,
            try await database.claimSignInAttempt(tokenID: id, maxAttempts: maxAttempts, now: now)
        else { throw AuthError.codeExpired }
        let matches = KeyedHash.constantTimeEquals(codeHash(otpID: otpID, code: code), storedHash)
        switch TokenCheck.decide(token, secretMatches: matches, now: now, maxAttempts: maxAttempts) {
        case .refuseExpired:
            throw AuthError.codeExpired
        case .countWrongAttempt:
            logger.notice("wrong sign-in code", metadata: ["user": "\(token.userID?.rawValue ?? "-")"])
            throw AuthError.invalidCode
        case .consume:
            return (token, id, now)
        }
    }

    /// Stores a single-use link for `email` bound to the asking browser and mails it (same rules
    /// for who gets mail as `requestEmailOTP`), opening `link` (an enchanted link's page, an app's
    /// address).
    public func requestMagicLink(
        email: String, allowSignUp: Bool, browserBinding: String, opening link: LinkOpening = .magicLinkPage,
        signUpProfile: Profile? = nil
    ) async throws {
        let issued = try await issueMagicLink(
            email: email, allowSignUp: allowSignUp, browserBinding: browserBinding, signUpProfile: signUpProfile)
        if let recipient = issued.recipient {
            let link = link.address(token: issued.secret, page: configuration.page)
            await deliverPasswordless(
                PasswordlessMail.link(link, to: recipient.email, lifetime: Self.magicLinkLifetime), recipient.id)
        }
    }

    /// Stores a single-use link for `email`, bound to a browser or (nil) to none; its secret and
    /// who may be mailed it.
    func issueMagicLink(email: String, allowSignUp: Bool, browserBinding: String?, signUpProfile: Profile? = nil) async throws
        -> (secret: String, recipient: (email: String, id: UserID?)?)
    {
        let email = try Self.passwordlessAddress(email)
        let secret = SecureRandom.token()
        let recipient = try await storeSignInToken(
            kind: .link, email: email, allowSignUp: allowSignUp, lookupHash: linkLookupHash(secret), codeHash: nil,
            browserBinding: browserBinding, lifetime: Self.magicLinkLifetime, signUpProfile: signUpProfile)
        return (secret, recipient)
    }

    /// The binding of a live link; nil for an unknown, spent or expired one.
    public func browserBinding(ofMagicLink token: String) async throws -> String? {
        guard let stored = try await database.signInToken(lookupHash: linkLookupHash(token)), stored.kind == .link,
            stored.consumedAt == nil, stored.expiresAt > now(for: stored.userID)
        else { return nil }
        return stored.browserBinding
    }

    /// Signs in with a link's token. A binding that is not the asking browser's spends nothing and
    /// names the address (`.magicLinkOpenedElsewhere`); nil means the person confirmed it. Unknown
    /// tokens are `.invalidCode`; spent, superseded and expired ones `.codeExpired`. `guest` as for a code.
    public func signIn(magicLinkToken: String, browserBinding: String?, upgrading guest: UserID? = nil) async throws -> User {
        let (token, id, now) = try await liveLink(magicLinkToken)
        if let browserBinding, !KeyedHash.constantTimeEquals(browserBinding, token.browserBinding ?? "") {
            throw AuthError.magicLinkOpenedElsewhere(email: token.email)
        }
        return try await spend(token, id: id, now: now, via: "link", guest: guest)
    }

    /// The live token a link names, not spent. Unknown: `.invalidCode`; spent, expired, or for an
    /// account that is gone or disabled: `.codeExpired`.
    func liveLink(_ magicLinkToken: String) async throws -> (SignInTokenRecord, Int64, Date) {
        guard let token = try await database.signInToken(lookupHash: linkLookupHash(magicLinkToken)),
            token.kind == .link, let id = token.id
        else { throw AuthError.invalidCode }
        let now = self.now(for: token.userID)
        guard token.consumedAt == nil, token.expiresAt > now else { throw AuthError.codeExpired }
        if let userID = token.userID {
            guard let user = try await database.user(id: userID), !user.disabled else { throw AuthError.codeExpired }
        } else if !token.allowSignUp {
            throw AuthError.codeExpired
        }
        return (token, id, now)
    }

    // MARK: Helpers

    /// The trimmed address, or `.validation` naming the `email` field.
    private static func passwordlessAddress(_ email: String) throws -> String {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(email) else {
            throw AuthError.validation([FieldError(field: "email", message: "Enter a valid email address.")])
        }
        return email
    }

    /// Writes the token row for any address; returns who to mail, if anyone.
    private func storeSignInToken(
        kind: SignInTokenRecord.Kind, email: String, allowSignUp: Bool, lookupHash: String, codeHash: String?,
        browserBinding: String?, lifetime: TimeInterval, signUpProfile: Profile?
    ) async throws -> (email: String, id: UserID?)? {
        let user = try await database.user(email: email)
        let now = self.now(for: user?.id)
        let expiresAt = now.addingTimeInterval(lifetime)
        try await database.replaceSignInTokens(
            with: SignInTokenRecord(
                kind: kind, lookupHash: lookupHash, codeHash: codeHash, email: user?.email ?? email, userID: user?.id,
                allowSignUp: allowSignUp, browserBinding: browserBinding, expiresAt: expiresAt, createdAt: now,
                signUpProfile: user == nil && allowSignUp ? signUpProfile : nil))
        if let user { return user.disabled ? nil : (user.email, user.id) }
        return allowSignUp ? (email, nil) : nil
    }

    /// Spends the token and returns its account, refusing disabled accounts and addresses without one.
    private func spend(
        _ token: SignInTokenRecord, id: Int64, now: Date, via: String, guest: UserID? = nil
    ) async throws -> User {
        let newUser = UserRecord(
            id: UserID(SecureRandom.userID()), email: token.email, passwordHash: nil, verified: true,
            profile: token.signUpProfile ?? Profile(), createdAt: now, updatedAt: now)
        switch try await database.spendSignInToken(id: id, now: now, newUser: newUser, guest: guest) {
        case .dead:
            throw AuthError.codeExpired
        case .noAccount:
            logger.notice("passwordless sign-in for an address without an account", metadata: ["via": "\(via)"])
            throw via == "code" ? AuthError.invalidCode : AuthError.codeExpired
        case .signedIn(let user, let created):
            guard !user.disabled else {
                logger.notice("passwordless sign-in refused", metadata: ["user": "\(user.id)", "reason": "disabled"])
                throw via == "code" ? AuthError.invalidCode : AuthError.codeExpired
            }
            if created { logger.info("account created", metadata: ["user": "\(user.id)", "via": "\(via)"]) }
            logger.info("signed in", metadata: ["user": "\(user.id)", "via": "\(via)"])
            return user.user
        }
    }

    private func deliverPasswordless(_ mail: OutgoingMail, _ userID: UserID?) async {
        do {
            try await mailer.send(MailBrand.current.withLogo(mail))
        } catch {
            logger.error(
                "sign-in mail not sent", metadata: ["user": "\(userID?.rawValue ?? "-")", "error": "\(type(of: error))"])
        }
    }

    private func otpLookupHash(_ otpID: String) -> String { keyedHash.hex("sign-in-otp:" + otpID) }
    private func codeHash(otpID: String, code: String) -> String { keyedHash.hex("sign-in-code:\(otpID):\(code)") }
    private func linkLookupHash(_ token: String) -> String { keyedHash.hex("magic-link:" + token) }
}
