import AuthCore
import Foundation
import PasswordStrength
import Secrets
import Store

extension LocalAccounts {
    /// Validates every field, hashes the password (before any transaction is open), then writes
    /// the user and its verification token in one transaction and mails the code or link. Without
    /// `mailsVerification` (a way in whose app verifies addresses itself) the account is still
    /// unverified while addresses are verified, but nothing is mailed and nothing waits for it.
    /// With `request.appAsksForVerificationMail` the account waits for its proof, unmailed.
    public func signUp(_ request: SignUpRequest, mailsVerification: Bool = true) async throws -> SignUpOutcome {
        let name = request.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        let problems = signUpProblems(request, name: name)
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        let passwordHash = try await hasher.hash(request.password)
        return try await insertAccount(
            id: UserID(SecureRandom.userID()), email: request.email, name: name, passwordHash: passwordHash,
            mailsVerification: mailsVerification, mailsNow: !request.appAsksForVerificationMail)
    }

    /// An account with no password (a passkey is its credential), under `id`: the address and
    /// name checked as `signUp` checks them, then written, mailed and answered as `signUp` does.
    public func signUpWithoutPassword(id: UserID, email: String, name: String?, mailsVerification: Bool = true)
        async throws -> SignUpOutcome
    {
        let name = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        var problems = addressProblems(email) + nameProblems(name)
        if !SecureRandom.isUserID(id.rawValue) {
            problems.append(FieldError(field: "id", message: "The account id is not one this server makes."))
        }
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        return try await insertAccount(
            id: id, email: email, name: name, passwordHash: nil, mailsVerification: mailsVerification, mailsNow: true)
    }

    /// Writes the user and its verification token in one transaction and mails the code or link;
    /// without `mailsNow` the account waits for a verification mail its app asks for later.
    private func insertAccount(
        id userID: UserID, email: String, name: String?, passwordHash: String?, mailsVerification: Bool, mailsNow: Bool
    ) async throws -> SignUpOutcome {
        let now = clock()
        let needsVerification = configuration.verification != .none
        var profile = Profile()
        if let name, !name.isEmpty { profile.fields["name"] = .string(name) }
        let record = UserRecord(
            id: userID, email: email, passwordHash: passwordHash,
            verified: !needsVerification, profile: profile, createdAt: now, updatedAt: now)
        let mailed = mailsVerification && mailsNow
        var pending = mailed ? pendingVerification(userID: userID, email: record.email, now: now) : nil
        // The sign-up's own mail stands for the credentials it was made with (`AddressProof`), and
        // lets whoever holds the address remove an account they did not make.
        var disown: VerificationTokenRecord?
        if var signUpMail = pending {
            disown = makeSignUpMail(&signUpMail, userID: userID, now: now)
            pending = signUpMail
        }

        let user: UserRecord
        do {
            user = try await database.insertUser(
                record, verificationToken: pending?.token, twin: pending?.linkTwin, bySignUp: true, disown: disown)
        } catch AuthError.emailExists {
            // The owner hears of it; the caller decides what the person at the form is told.
            if needsVerification && mailed, let owner = try await database.user(email: email) {
                let mail = VerificationMail.signUpAttempt(
                    to: owner.email, signInURL: configuration.page("/auth/sign-in"))
                await deliver(mail, userID: owner.id)
            }
            throw AuthError.emailExists
        }
        logger.info("account created", metadata: ["user": "\(userID)", "password": "\(passwordHash != nil)"])
        if let pending { await deliver(pending.mail, userID: userID) }
        return SignUpOutcome(user: user.user, session: nil, requireEmailVerification: needsVerification && mailsVerification)
    }

    /// Every problem of the form at once, by field.
    func signUpProblems(_ request: SignUpRequest, name: String?) -> [FieldError] {
        var problems = addressProblems(request.email)
        let knownToAttackers = PasswordRules.userInputs(emails: [request.email], name: name)
        if let message = configuration.passwordRules.problem(with: request.password, userInputs: knownToAttackers) {
            problems.append(FieldError(field: "password", message: message))
        }
        return problems + nameProblems(name)
    }

    private func addressProblems(_ email: String) -> [FieldError] {
        EmailAddress.isPlausible(email) ? [] : [FieldError(field: "email", message: "Enter a valid email address.")]
    }

    private func nameProblems(_ name: String?) -> [FieldError] {
        guard let name, let message = ProfileRules.nameProblem(name) else { return [] }
        return [FieldError(field: "name", message: message)]
    }
}
