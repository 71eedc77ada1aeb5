import AuthCore
import Foundation
import Secrets
import Store

extension LocalAccounts {
    /// A guest account: a random placeholder address in the Rownd plugin's form
    /// (`guest_<uuid>@anonymous.local`, never mailed: `GuestAddressMailer`), no password, unproven whatever
    /// `--verification` says; the guest mark (`guest_accounts`) is what makes it a guest.
    public func signUpGuest() async throws -> User {
        let now = clock()
        let record = UserRecord(
            id: UserID(SecureRandom.userID()), email: "guest_\(UUID().uuidString.lowercased())@\(GuestAddressMailer.domain)",
            passwordHash: nil, verified: false, profile: Profile(), createdAt: now, updatedAt: now)
        let user = try await database.insertGuest(record)
        logger.info("guest account created", metadata: ["user": "\(user.id)"])
        return user.user
    }

    /// Guest `id` given `request`'s address and password, checked, hashed, written and mailed as
    /// `signUp` writes a new account's (the same verification and "not me" mail), keeping its id,
    /// profile and sessions.
    public func upgradeGuest(_ id: UserID, to request: SignUpRequest, mailsVerification: Bool) async throws -> SignUpOutcome {
        let problems = signUpProblems(request, name: nil)
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        let passwordHash = try await hasher.hash(request.password)
        let now = clock()
        let needsVerification = configuration.verification != .none
        let mailed = mailsVerification && !request.appAsksForVerificationMail
        var pending = mailed ? pendingVerification(userID: id, email: request.email, now: now) : nil
        var disown: VerificationTokenRecord?
        if var signUpMail = pending {
            disown = makeSignUpMail(&signUpMail, userID: id, now: now)
            pending = signUpMail
        }
        let tokens = [pending?.token, pending?.linkTwin, disown].compactMap { $0 }
        // With `--verification none` every account is made proven; the guest was not.
        let user = try await database.upgradeGuest(
            id: id, email: request.email, passwordHash: passwordHash, proven: !needsVerification, at: now, tokens: tokens)
        logger.info("guest account upgraded", metadata: ["user": "\(id)"])
        if let pending { await deliver(pending.mail, userID: id) }
        return SignUpOutcome(user: user.user, session: nil, requireEmailVerification: needsVerification && mailsVerification)
    }
}
