import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// `/_/users/{id}`: one account with everything support staff do to it, each action a form post
/// that comes back to this page with a notice (or the page again with the problem named).
struct ConsoleUserPage: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/users/:id", env) { visit, staff in
            try await page(visit, staff, user: try await loadUser(visit, staff))
        }
        router.consolePage(.post, "/_/users/:id/profile", env, saveProfile)
        router.consolePage(.post, "/_/users/:id/verify", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            let verified = try visit.field("verified") == "true"
            return try await perform(visit, staff, user, notice: verified ? .verifiedSet : .unverifiedSet) { operations in
                _ = try await operations.update(user, UserUpdate(verified: verified))
            }
        }
        router.consolePage(.post, "/_/users/:id/resend", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            return try await perform(visit, staff, user, notice: .verificationSent) { operations in
                try await operations.resendVerification(to: user)
            }
        }
        router.consolePage(.post, "/_/users/:id/password-reset", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            return try await perform(visit, staff, user, notice: .passwordResetSent) { operations in
                try await operations.sendPasswordReset(to: user)
            }
        }
        router.consolePage(.post, "/_/users/:id/password", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            let password = try visit.field("password")
            if let problem = env.accounts.passwordRules.problem(with: password, userInputs: [user.email]) {
                var errors = FormErrors()
                errors.add("password", problem)
                return try await page(visit, staff, user: user, errors: errors, status: 422)
            }
            return try await perform(visit, staff, user, notice: .passwordSet) { operations in
                _ = try await operations.update(user, UserUpdate(password: password))
            }
        }
        router.consolePage(.post, "/_/users/:id/email", env, setEmail)
        registerLockouts(on: &router)
        router.consolePage(.post, "/_/users/:id/disable", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            let disable = try visit.field("disabled") == "true"
            return try await perform(visit, staff, user, notice: disable ? .userDisabled : .userEnabled) { operations in
                _ = try await operations.update(user, UserUpdate(disabled: disable))
            }
        }
        router.consolePage(.post, "/_/users/:id/delete", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            guard EmailAddress.normalize(try visit.field("confirm")) == EmailAddress.normalize(user.email) else {
                var errors = FormErrors()
                errors.add("confirm", "Type the user's email address exactly to confirm.")
                return try await page(visit, staff, user: user, errors: errors, status: 422)
            }
            let response = try await perform(visit, staff, user, notice: .userDeleted) { operations in
                try await operations.delete(user)
            }
            return response.status == 303 ? .redirect(to: "/_/users?notice=\(Notice.userDeleted.rawValue)") : response
        }
        router.consolePage(.post, "/_/users/:id/sessions/revoke-all", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            return try await perform(visit, staff, user, notice: .sessionsRevoked) { operations in
                try await operations.revokeSessions(
                    of: user, removingPasskeys: try visit.form.single("remove_passkeys") == "on")
            }
        }
        router.consolePage(.post, "/_/users/:id/sessions/:sid/revoke", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            let sessionID = try visit.parameters.require("sid", as: Int64.self)
            return try await perform(visit, staff, user, notice: .sessionRevoked) { operations in
                guard try await operations.revokeSession(sessionID, of: user) else {
                    throw ConsoleError.notFound("That session does not belong to this user.")
                }
            }
        }
        router.consolePage(.post, "/_/users/:id/totp/reset", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            return try await perform(visit, staff, user, notice: .totpReset) { operations in
                try await operations.resetTOTP(of: user)
            }
        }
        router.consolePage(.post, "/_/users/:id/passkeys/:pid/delete", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            let passkey = try visit.parameters.require("pid", as: Int64.self)
            return try await perform(visit, staff, user, notice: .userPasskeyDeleted) { operations in
                guard try await operations.deletePasskey(passkey, of: user) else {
                    throw ConsoleError.notFound("That passkey does not belong to this user.")
                }
            }
        }
        router.consolePage(.post, "/_/users/:id/external-auths/:provider/unlink", env) { visit, staff in
            let user = try await loadUser(visit, staff)
            let provider = try visit.parameters.require("provider")
            return try await perform(visit, staff, user, notice: .providerRemoved) { operations in
                try await operations.unlink(provider, of: user)
            }
        }
    }

    /// The account named in the path, through the backend's admin API.
    func loadUser(_ visit: Visit, _ staff: Staff) async throws -> User {
        let id = UserID(try visit.parameters.require("id"))
        do {
            return try await operations(visit, staff).user(id)
        } catch AuthError.userNotFound {
            throw ConsoleError.notFound("There is no user with the id \(id).")
        }
    }

    func operations(_ visit: Visit, _ staff: Staff) -> UserAdministration {
        UserAdministration(env: env.accounts, staff: staff, request: visit.request, via: "console")
    }

    /// Runs one of `UserAdministration`'s acts (which audits it) and comes back with a notice; a
    /// refused act re-renders the page with the backend's reason.
    func perform(
        _ visit: Visit, _ staff: Staff, _ user: User, notice: Notice,
        _ action: (UserAdministration) async throws -> Void
    ) async throws -> Response {
        do {
            try await action(operations(visit, staff))
        } catch let error as AuthError {
            var errors = FormErrors()
            if case .validation(let fields) = error { errors.add(fields) } else { errors.add("form", error.pageMessage) }
            return try await page(visit, staff, user: user, errors: errors, status: 422)
        }
        return .redirect(to: ConsoleURL.user(user.id) + "?notice=\(notice.rawValue)")
    }

    /// Sets the address directly (support, after checking who asks): no confirmation mail, the
    /// user's sessions end. A taken or malformed address is named on the field, the input kept.
    private func setEmail(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let user = try await loadUser(visit, staff)
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        var errors = FormErrors()
        if !EmailAddress.isPlausible(email) {
            errors.add("email", "Enter a valid email address.")
        } else if EmailAddress.normalize(email) == EmailAddress.normalize(user.email) {
            errors.add("email", "That is already this user's address.")
        } else {
            do {
                _ = try await operations(visit, staff).update(user, UserUpdate(email: email))
                return .redirect(to: ConsoleURL.user(user.id) + "?notice=\(Notice.emailSet.rawValue)")
            } catch AuthError.emailExists {
                errors.add("email", "Another account already has this address.")
            } catch AuthError.validation(let fields) {
                errors.add(fields)
            } catch let error as AuthError {
                errors.add("form", error.pageMessage)
            }
        }
        return try await page(visit, staff, user: user, errors: errors, newEmail: email, status: 422)
    }

    private func saveProfile(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let user = try await loadUser(visit, staff)
        var form = try ProfileForm(visit.form)
        let errors = form.validate()
        guard errors.isEmpty else { return try await page(visit, staff, user: user, form: form, errors: errors, status: 422) }
        let patch = form.patch(against: user.profile)
        if patch.isEmpty { return .redirect(to: ConsoleURL.user(user.id) + "?notice=\(Notice.userSaved.rawValue)") }
        do {
            _ = try await operations(visit, staff).update(user, UserUpdate(profilePatch: patch))
        } catch AuthError.validation(let fields) {
            var errors = FormErrors()
            for field in fields {
                errors.add(ProfileForm.ownFields.contains(field.field) ? field.field : "custom", field.message)
                form.markCustomError(key: field.field, message: field.message)
            }
            return try await page(visit, staff, user: user, form: form, errors: errors, status: 422)
        }
        return .redirect(to: ConsoleURL.user(user.id) + "?notice=\(Notice.userSaved.rawValue)")
    }
}
