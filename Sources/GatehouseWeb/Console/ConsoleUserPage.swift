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

    /// The whole user page.
    func page(
        _ visit: Visit, _ staff: Staff, user: User, form: ProfileForm? = nil, errors: FormErrors = FormErrors(),
        issuedToken: (token: String, expiresAt: Date)? = nil, newEmail: String = "", status: Int = 200
    ) async throws -> Response {
        let form = form ?? ProfileForm(profile: user.profile)
        let base = ConsoleURL.user(user.id)
        let now = env.clock()
        let capabilities = env.capabilities
        var page: [String: Any] = [
            "user": [
                "id": user.id.rawValue, "email": user.email, "name": user.profile.name ?? "", "verified": user.emailVerified,
                "disabled": user.disabled, "createdAt": DisplayDate.dateTime(user.createdAt),
                "updatedAt": DisplayDate.dateTime(user.updatedAt),
                "initials": Initials.of(name: user.profile.name ?? "", email: user.email),
                "avatarURL": user.profile.avatarURL ?? ""
            ],
            "actions": [
                "profile": base + "/profile", "verify": base + "/verify", "resend": base + "/resend",
                "password": base + "/password", "passwordReset": base + "/password-reset", "email": base + "/email",
                "disable": base + "/disable",
                "delete": base + "/delete",
                "impersonate": base + "/impersonate", "revokeAll": base + "/sessions/revoke-all"
            ],
            "passwordRules": env.accounts.passwordRules.summary,
            "newEmail": newEmail,
            "mailboxURL": URLQuery.path("/_/mailbox", [("to", user.email)]),
            "auditURL": URLQuery.path("/_/audit", [("user", user.id.rawValue)])
        ]
        if let addresses = env.configuration.testAddresses, addresses.reserves(user.email) {
            page["testAddress"] = addresses.suffix
        }
        if !capabilities.contains(.disableUsers) {
            // PocketBase has no disabled accounts: say so where the button would be.
            page["disableUnavailable"] = AuthError.notSupported(.disableUsers).pageMessage
        }
        if !capabilities.contains(.passwordReset) {
            page["passwordResetUnavailable"] = AuthError.notSupported(.passwordReset).pageMessage
        }
        let administration = operations(visit, staff)
        page["staffRole"] = try await administration.holdingStaffRole([user]).contains(user.id)
        page["guest"] = try await administration.guests(among: [user.id]).contains(user.id)
        page["lockouts"] = try await lockoutsContext(of: user, administration)
        page["waitingEmail"] = try await waitingEmailContext(of: user, administration)
        if let refusal = try await ImpersonationPolicy(env: env.accounts).refusal(of: user, impersonating: visit.isImpersonating)
        {
            page["impersonationUnavailable"] = refusal.message
        } else {
            page["canImpersonate"] = ["reasonRequired": env.accounts.impersonationReasonRule == .required]
        }
        if let issuedToken {
            page["issuedToken"] = ["token": issuedToken.token, "expiresAt": DisplayDate.dateTime(issuedToken.expiresAt)]
        }
        let sessions = try await administration.sessions(of: user).prefix(50)
        let rows = sessions.map { session -> [String: Any] in
            let status = session.revokedAt != nil ? "revoked" : (session.expiresAt <= now ? "expired" : "active")
            var row: [String: Any] = [
                "id": session.id, "device": session.userAgent.map(DeviceName.describe) ?? "Unknown device",
                "ip": session.ip ?? "", "createdAt": DisplayDate.dayAndMinute(session.createdAt),
                "lastUsedAt": DisplayDate.dayAndMinute(session.lastUsedAt), "status": status, "active": status == "active",
                "revokeURL": base + "/sessions/\(session.id)/revoke"
            ]
            row["impersonator"] = session.impersonator
            return row
        }
        // The live ones in view; revoked and expired ones behind "Show ended sessions".
        let live = rows.filter { $0["active"] as? Bool == true }
        let ended = rows.filter { $0["active"] as? Bool != true }
        page["activeTable"] = live.isEmpty ? false : ["rows": live, "caption": "Live sessions of this user"]
        page["endedTable"] =
            ended.isEmpty
            ? false
            : [
                "rows": ended, "caption": "Ended sessions of this user",
                "summary": ended.count == 1 ? "Show 1 ended session" : "Show \(ended.count) ended sessions"
            ]
        page["sessionsEmpty"] = sessions.isEmpty
        if capabilities.contains(.externalAuths) {
            let links = (try? await administration.externalAuths(of: user)) ?? []
            page["externalAuths"] = links.map { link in
                [
                    "provider": link.provider, "providerId": link.providerID, "createdAt": DisplayDate.dateTime(link.createdAt),
                    "email": link.email ?? "",
                    "unlinkURL": base + "/external-auths/"
                        + (link.provider.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "/unlink"
                ] as [String: Any]
            }
            page["externalAuthsEmpty"] = links.isEmpty
        } else {
            page["externalAuthsUnsupported"] = "Linked accounts are not supported by this backend."
        }
        if capabilities.contains(.totp) {
            let status = try await administration.totpStatus(of: user)
            page["totp"] =
                [
                    "enabled": status.enabled, "recoveryCodesLeft": status.recoveryCodesLeft, "resetURL": base + "/totp/reset"
                ] as [String: Any]
        } else {
            page["totpUnsupported"] = AuthError.notSupported(.totp).pageMessage
        }
        if capabilities.contains(.passkeys) {
            let passkeys = try await administration.passkeys(of: user)
            // Staff may delete a passkey that is the account's only way in (a lost device); the
            // page says so first, and what is left to the person ("Forgot password?").
            let onlyWayIn = try await administration.passkeyIsOnlyWayIn(of: user)
            page["passkeysEmpty"] = passkeys.isEmpty
            page["hasPasskeys"] = !passkeys.isEmpty
            page["passkeys"] = passkeys.map { passkey in
                [
                    "name": passkey.name, "createdAt": DisplayDate.dateTime(passkey.createdAt),
                    "lastUsed": passkey.lastUsedAt.map(DisplayDate.dateTime) ?? "never",
                    "transports": passkey.transports.joined(separator: ", "), "synced": passkey.backedUp,
                    "deleteURL": base + "/passkeys/\(passkey.id)/delete", "onlyWayIn": onlyWayIn
                ] as [String: Any]
            }
        } else {
            page["passkeysUnsupported"] = AuthError.notSupported(.passkeys).pageMessage
        }
        let mails = try await env.mailbox.mails(to: user.email, limit: 10)
        page["mails"] = mails.map { mail -> [String: Any] in
            var row: [String: Any] = ["subject": mail.subject, "createdAt": DisplayDate.dateTime(mail.createdAt)]
            row["code"] = mail.code
            row["link"] = mail.link
            return row
        }
        page["mailsEmpty"] = mails.isEmpty
        let log = AuditLog(env: env.accounts)
        let events = try await log.events(AuditQuery(subject: user.id.rawValue, limit: 20))
        let people = await log.people(in: events)
        page["events"] = events.map { event in
            // No actor is no one named (a refused sign-in was tried by whoever typed), as in the audit log.
            AuditWording.fields(event).merging(["actor": AuditPages.Named(event, people).actor ?? ""]) { $1 }
        }
        page["eventsEmpty"] = events.isEmpty
        return env.renderer.page(
            .consoleUser,
            visit.consoleContext(
                title: user.email, staff: staff, nav: .users, backendName: env.configuration.backendDescription,
                page.merging(form.context) { $1 }.merging(errors.context) { $1 }), status: status)
    }
}

/// Console failures that become a status and a page.
enum ConsoleError: HTTPResponseError {
    case notFound(String)
    case unsupported(Capability)
    case refused(String)

    var status: Int {
        switch self {
        case .notFound: return 404
        case .unsupported: return 501
        case .refused: return 403
        }
    }

    var message: String {
        switch self {
        case .notFound(let message), .refused(let message): return message
        case .unsupported(let capability): return "\(capability.displayName) is not supported by this backend."
        }
    }
}

/// A readable device name from a User-Agent header.
enum DeviceName {
    static func describe(_ userAgent: String) -> String {
        let browsers = [
            ("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"),
            ("curl/", "curl"), ("python", "Python"), ("Go-http-client", "Go")
        ]
        let systems = [
            ("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Mac OS X", "macOS"),
            ("Windows", "Windows"), ("Linux", "Linux")
        ]
        let browser = browsers.first { userAgent.contains($0.0) }?.1
        let system = systems.first { userAgent.contains($0.0) }?.1
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return system
        default: return String(userAgent.prefix(40))
        }
    }
}
