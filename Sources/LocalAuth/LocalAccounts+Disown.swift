import AuthCore
import Foundation
import Secrets
import Store

/// The sign-up mail's "this wasn't me" link: whoever holds the address removes an account someone
/// else made with it, while nobody has proven the address (`AppDatabase.disownAccount`).
extension LocalAccounts {
    /// Makes `pending` the sign-up's own mail: bound to the sign-up, carrying the "this wasn't me"
    /// link; returns that link's token, to be stored beside the mail's.
    func makeSignUpMail(_ pending: inout PendingVerification, userID: UserID, now: Date) -> VerificationTokenRecord {
        pending.bindToSignUp()
        let notMe = notMeLink(userID: userID, now: now)
        pending.mail = VerificationMail.offeringRemoval(pending.mail, link: notMe.link)
        return notMe.token
    }

    /// A fresh link and the token that stores its keyed hash, living as long as a verification link.
    private func notMeLink(userID: UserID, now: Date) -> (token: VerificationTokenRecord, link: String) {
        let secret = SecureRandom.token()
        let token = VerificationTokenRecord(
            userID: userID, purpose: .disown, kind: .link, secretHash: keyedHash.hex(secret),
            expiresAt: now.addingTimeInterval(configuration.linkLifetime), createdAt: now)
        return (token, configuration.page("/auth/not-me?token=\(secret)"))
    }

    /// The address of the unproven account `token` would remove; nil when none.
    public func disownableAccount(token: String) async throws -> String? {
        try await database.disownableAccount(secretHash: keyedHash.hex(token), clock: clock)
    }

    /// Removes the unproven account `token` names; its address, or nil when none was removed.
    public func disownAccount(token: String) async throws -> String? {
        let removed = try await database.disownAccount(secretHash: keyedHash.hex(token), clock: clock)
        if removed != nil { logger.info("account removed by its address's owner") }
        return removed
    }
}
