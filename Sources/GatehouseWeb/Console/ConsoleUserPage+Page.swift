import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// The user page's context: the account, its state and each section staff act on.
extension ConsoleUserPage {
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
