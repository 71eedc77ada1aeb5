import AuthCore
import Foundation
import HTTPServer

/// Support staff's acts on one account: the rules the console's user page and the JSON admin API
/// both follow — the backend change, what it does to Gatehouse's own state (sessions, tags), and
/// the one audit event each act is recorded under, so the same act has the same name from both.
public struct UserAdministration: Sendable {
    let env: Accounts
    let api: any AuthAPI
    let staff: Staff
    let request: Request
    /// Which front-end asked, kept in the audit event (`console` or `api`).
    let via: String

    public init(env: Accounts, api: any AuthAPI, staff: Staff, request: Request, via: String) {
        self.env = env
        self.api = api
        self.staff = staff
        self.request = request
        self.via = via
    }

    /// Applies `update`. A new password, a new email or disabling ends every session of the user;
    /// the event names the act when it is one (`admin.user.password_set`, `.verified`, `.disabled`,
    /// `.enabled`, `profile.updated`) and is `admin.user.updated` otherwise, listing the fields changed.
    public func update(_ user: User, _ update: UserUpdate) async throws -> User {
        let updated = try await api.admin.updateUser(user.id, update)
        if update.password != nil || update.email != nil || update.disabled == true {
            try await env.database.revokeSessions(userID: user.id, at: env.clock())
        }
        var data: [String: JSONValue] = ["via": .string(via)]
        let event = Self.event(for: update)
        if event == .adminUserUpdated { data["fields"] = .array(Self.fields(of: update).map(JSONValue.string)) }
        if let patch = update.profilePatch { data["keys"] = .array(patch.keys.sorted().map(JSONValue.string)) }
        await env.audit.record(event, actor: staff.superuser.id, subject: user.id.rawValue, request: request, data: data)
        return updated
    }

    /// Deletes the account, ends its sessions and drops its tags and the app's meta on it.
    public func delete(_ user: User) async throws {
        try await Self.remove(user, api: api, env: env)
        await env.audit.record(
            .adminUserDeleted, actor: staff.superuser.id, subject: user.id.rawValue, request: request,
            data: ["email": .string(user.email), "via": .string(via)])
    }

    /// The account's owner deletes it (PocketBase's delete rule for `users`): the same effects,
    /// recorded as the owner's own act.
    public static func deleteOwnAccount(_ signedIn: SignedIn, env: Accounts, request: Request, via: String) async throws {
        try await remove(signedIn.user, api: env.backend, env: env)
        await env.audit.recordOwnAct(
            .accountDeleted, of: signedIn, request: request, data: ["email": .string(signedIn.user.email), "via": .string(via)])
    }

    /// The deletion every way to delete an account shares: the backend's account, its sessions, its
    /// tags and the app's meta on it.
    static func remove(_ user: User, api: any AuthAPI, env: Accounts) async throws {
        try await api.admin.deleteUser(user.id)
        try await env.database.revokeSessions(userID: user.id, at: env.clock())
        try await env.database.removeTags(of: [user.id])
        try await env.database.deleteAppUserMeta(userID: user.id.rawValue)
    }

    /// Ends every session of the user; returns how many were live. `removingPasskeys`: every
    /// passkey goes too (a takeover's passkey must not outlive staff's recovery of the account).
    @discardableResult
    public func revokeSessions(of user: User, removingPasskeys: Bool = false) async throws -> Int {
        let count = try await env.database.revokeSessions(userID: user.id, at: env.clock())
        var data: [String: JSONValue] = ["count": .number(Double(count)), "via": .string(via)]
        if removingPasskeys, env.capabilities.contains(.passkeys) {
            data["passkeys_removed"] = .number(Double(try await env.database.deletePasskeys(of: user.id)))
        }
        await env.audit.record(
            .sessionRevoked, actor: staff.superuser.id, subject: user.id.rawValue, request: request, data: data)
        return count
    }

    /// Ends one session; false when it is not this user's.
    public func revokeSession(_ sessionID: Int64, of user: User) async throws -> Bool {
        guard try await env.database.sessions(userID: user.id).contains(where: { $0.id == sessionID }) else { return false }
        try await env.database.revokeSession(id: sessionID, at: env.clock())
        await env.audit.record(
            .sessionRevoked, actor: staff.superuser.id, subject: user.id.rawValue, request: request,
            data: ["session": .number(Double(sessionID)), "via": .string(via)])
        return true
    }

    /// Removes the user's link to `provider`.
    public func unlink(_ provider: String, of user: User) async throws {
        try await api.admin.unlinkExternalAuth(of: user.id, provider: provider)
        await env.audit.record(
            .externalAuthUnlinked, actor: staff.superuser.id, subject: user.id.rawValue, request: request,
            data: ["provider": .string(provider), "via": .string(via)])
    }

    /// Turns the user's two-step sign-in off and drops their recovery codes (after support checked
    /// who is asking); they sign in with the first step alone until they set it up again.
    public func resetTOTP(of user: User) async throws {
        try await api.admin.resetTOTP(of: user.id)
        await env.audit.record(
            .adminUserTOTPReset, actor: staff.superuser.id, subject: user.id.rawValue, request: request,
            data: ["via": .string(via)])
    }

    /// Mails the account a fresh verification code or link, as its owner could ask for.
    public func resendVerification(to user: User) async throws {
        try await api.resendVerificationEmail(email: user.email)
        await env.audit.record(
            .verificationSent, actor: staff.superuser.id, subject: user.id.rawValue, request: request,
            data: ["by": .string(via)])
    }

    /// Mails the account a password reset, as its owner could ask for.
    public func sendPasswordReset(to user: User) async throws {
        try await api.requestPasswordReset(email: user.email)
        await env.audit.record(
            .passwordResetRequested, actor: staff.superuser.id, subject: user.id.rawValue, request: request,
            data: ["by": .string(via)])
    }

    /// The event for an update: the act's own name when it changes one thing, else `updated`.
    static func event(for update: UserUpdate) -> AuditEvent {
        switch fields(of: update) {
        case ["password"]: .adminUserPasswordSet
        case ["profile"]: .profileUpdated
        case ["verified"]: update.verified == true ? .adminUserVerified : .adminUserUnverified
        case ["disabled"]: update.disabled == true ? .adminUserDisabled : .adminUserEnabled
        default: .adminUserUpdated
        }
    }

    /// Names of the fields an update changes (never their values).
    static func fields(of update: UserUpdate) -> [String] {
        [
            ("email", update.email != nil), ("password", update.password != nil), ("verified", update.verified != nil),
            ("disabled", update.disabled != nil), ("profile", update.profilePatch != nil)
        ].filter(\.1).map(\.0)
    }
}
