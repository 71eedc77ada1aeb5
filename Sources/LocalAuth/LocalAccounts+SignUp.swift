import AuthCore
import Foundation
import Secrets
import Store

extension LocalAccounts {
    /// Validates every field, hashes the password (before any transaction is open), then writes
    /// the user and its verification token in one transaction and mails the code or link. Without
    /// `mailsVerification` (a way in whose app verifies addresses itself) the account is still
    /// unverified while addresses are verified, but nothing is mailed and nothing waits for it.
    public func signUp(_ request: SignUpRequest, mailsVerification: Bool = true) async throws -> SignUpOutcome {
        let name = request.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        let problems = signUpProblems(request, name: name)
        guard problems.isEmpty else { throw AuthError.validation(problems) }

        let passwordHash = try await hasher.hash(request.password)
        let now = clock()
        let userID = UserID(SecureRandom.userID())
        let needsVerification = configuration.verification != .none
        var profile = Profile()
        if let name, !name.isEmpty { profile.fields["name"] = .string(name) }
        let record = UserRecord(
            id: userID, email: request.email, passwordHash: passwordHash,
            verified: !needsVerification, profile: profile, createdAt: now, updatedAt: now)
        let pending =
            mailsVerification
            ? pendingVerification(userID: userID, email: record.email, now: now, withLink: request.verificationMailWithLink)
            : nil

        let user: UserRecord
        do {
            user = try await database.insertUser(record, verificationToken: pending?.token, twin: pending?.linkTwin)
        } catch AuthError.emailExists {
            // The owner hears of it; the caller decides what the person at the form is told.
            if needsVerification && mailsVerification, let owner = try await database.user(email: request.email) {
                let mail = VerificationMail.signUpAttempt(
                    to: owner.email, signInURL: configuration.page("/auth/sign-in"))
                await deliver(mail, userID: owner.id)
            }
            throw AuthError.emailExists
        }
        logger.info("account created", metadata: ["user": "\(userID)"])
        if let pending { await deliver(pending.mail, userID: userID) }
        return SignUpOutcome(user: user.user, session: nil, requireEmailVerification: needsVerification && mailsVerification)
    }

    /// Every problem of the form at once, by field.
    func signUpProblems(_ request: SignUpRequest, name: String?) -> [FieldError] {
        var problems: [FieldError] = []
        if !EmailAddress.isPlausible(request.email) {
            problems.append(FieldError(field: "email", message: "Enter a valid email address."))
        }
        let knownToAttackers = [request.email] + (name.map { [$0] } ?? [])
        if let message = configuration.passwordRules.problem(with: request.password, userInputs: knownToAttackers) {
            problems.append(FieldError(field: "password", message: message))
        }
        if let name, let message = ProfileRules.nameProblem(name) {
            problems.append(FieldError(field: "name", message: message))
        }
        return problems
    }
}
