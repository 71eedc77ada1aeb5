import Accounts
import AuthCore

/// Audit events as support staff read them (issue 25, item 3): what happened in words ("Signed in
/// with an email code"), why a refusal happened ("account disabled"), and which way in it came
/// through ("PocketBase API"). The stored names (`AuditEvent`) stay the filter's values and the
/// API's; this is only how the console says them.
enum AuditWording {
    /// The event in words, with how it was done where the event records it.
    static func headline(_ event: AuditLine) -> String {
        let base = AuditEvent(rawValue: event.type).map(phrase) ?? event.type
        var parts = [base]
        if let method = event.data["method"]?.stringValue { parts.append(methods[method] ?? "with \(words(method))") }
        if let provider = event.data["provider"]?.stringValue, event.data["method"] == nil,
            event.type.hasPrefix("sign_in") || event.type.hasPrefix("external_auth")
        {
            parts.append("with \(provider)")
        }
        if let step = event.data["secondStep"]?.stringValue { parts.append(secondSteps[step] ?? "then \(words(step))") }
        return parts.joined(separator: " ")
    }

    /// Why the act was refused, when the event records it ("account disabled", "wrong code"); for
    /// an impersonation's start, why staff opened the account, as they typed it.
    static func reason(_ event: AuditLine) -> String? {
        guard let reason = event.data["reason"]?.stringValue else { return nil }
        if event.type == AuditEvent.impersonationStarted.rawValue { return reason }
        // A refusal recorded against an account had the account: the password was what was wrong.
        if reason == "invalid_credentials", event.subject != nil { return "wrong password" }
        return reasons[reason] ?? words(reason)
    }

    /// The way in the event came through: the front-end it names (`via`), else the console for
    /// staff events and the hosted pages for the rest.
    static func wayIn(_ event: AuditLine) -> String {
        if let via = event.data["via"]?.stringValue { return waysIn[via] ?? words(via) }
        if event.type.hasPrefix("console.") || event.type.hasPrefix("admin.") || event.type.hasPrefix("impersonation.")
            || event.type.hasPrefix("provider.") || event.type.hasPrefix("app.created") || event.type.hasPrefix("app.deleted")
        {
            return "Console"
        }
        return "Pages"
    }

    /// What the audit table and a user's activity both show of an event (the caller adds who).
    static func fields(_ event: AuditLine) -> [String: Any] {
        [
            "type": event.type, "headline": headline(event), "reason": reason(event) ?? "", "wayIn": wayIn(event),
            "ip": event.ip ?? "", "createdAt": DisplayDate.dateTime(event.createdAt), "summary": details(event)
        ]
    }

    /// The event's data left once the headline, reason, way in and subject's address say the rest.
    static func details(_ event: AuditLine) -> String {
        event.data.filter { !shownElsewhere.contains($0.key) }.sorted { $0.key < $1.key }
            .map { "\($0.key): \($0.value.displayText)" }.joined(separator: " · ")
    }

    private static let shownElsewhere: Set<String> = ["method", "reason", "via", "secondStep", "email"]

    private static func words(_ code: String) -> String {
        code.replacingOccurrences(of: "_", with: " ").replacingOccurrences(of: "-", with: " ")
    }

    private static func phrase(_ event: AuditEvent) -> String {
        switch event {
        case .accountDeleted: "Account deleted"
        case .accountDisowned: "Account removed by its address's owner"
        case .accountProven: "Address proven"
        case .adminDataReset: "Test data reset"
        case .adminUserCreated: "User created by staff"
        case .adminUserDeleted: "User deleted by staff"
        case .adminUserUpdated: "User edited by staff"
        case .adminUserPasswordSet: "Password set by staff"
        case .adminUserPasskeyDeleted: "Passkey deleted by staff"
        case .adminUserTOTPReset: "Authenticator reset by staff"
        case .adminUserVerified: "Email marked verified by staff"
        case .adminUserUnverified: "Email marked unverified by staff"
        case .adminUserDisabled: "Account disabled by staff"
        case .adminUserEnabled: "Account enabled by staff"
        case .adminUserUnlocked: "Sign-in back-off lifted by staff"
        case .adminUserTagged: "Tagged by staff"
        case .adminUsersBulkDeleted: "Users deleted in bulk"
        case .adminUsersImported: "Users imported"
        case .adminUsersSeeded: "Test users seeded"
        case .appCodeExchanged: "App exchanged its sign-in code"
        case .appCodeIssued: "Sign-in code issued to an app"
        case .appCreated: "App registered"
        case .appDeleted: "App removed"
        case .appUpdated: "App changed"
        case .appExchangeFailed: "App's code exchange refused"
        case .appLegacyCallback: "App signed in by the legacy callback"
        case .appSessionOpened: "Session opened by the app's backend"
        case .consolePasskeyAdded: "Staff passkey created"
        case .consolePasskeyAddFailed: "Staff passkey creation refused"
        case .consolePasskeyDeleted: "Staff passkey deleted"
        case .consoleRecoveryCodesRegenerated: "Staff recovery codes regenerated"
        case .consoleReauthenticated: "Confirmed their password on the console"
        case .consoleReauthenticationFailed: "Console password confirmation refused"
        case .consoleSignInCompleted: "Signed in to the console"
        case .consoleSignInFailed: "Console sign-in refused"
        case .consoleSignOut: "Signed out of the console"
        case .consoleTOTPDisabled: "Staff authenticator app turned off"
        case .consoleTOTPEnabled: "Staff authenticator app turned on"
        case .emailChangeConfirmed: "Email address changed"
        case .emailChangeFailed: "Email change refused"
        case .emailChangeRequested: "Email change requested"
        case .externalAuthLinkFailed: "Linking a provider refused"
        case .externalAuthLinked: "Provider linked"
        case .externalAuthUnlinked: "Provider unlinked"
        case .impersonationStarted: "Impersonation started"
        case .mailboxCleared: "Dev mailbox cleared"
        case .managementKeyCreated: "Management key created"
        case .managementKeyRevoked: "Management key revoked"
        case .impersonationStopped: "Impersonation ended"
        case .mfaCompleted: "Second step passed"
        case .mfaFailed: "Second step failed"
        case .oauthRefused: "Provider sign-in refused"
        case .passkeyAdded: "Passkey created"
        case .passkeyAddFailed: "Passkey creation refused"
        case .passkeyDeleted: "Passkey deleted"
        case .passkeyRenamed: "Passkey renamed"
        case .passwordChanged: "Password changed"
        case .passwordChangeFailed: "Password change refused"
        case .passwordResetCompleted: "Password reset"
        case .passwordResetFailed: "Password reset refused"
        case .passwordResetRequested: "Password reset requested"
        case .profileUpdated: "Profile updated"
        case .providerCreated: "Provider added"
        case .providerDeleted: "Provider removed"
        case .providerModeChanged: "Provider mode changed"
        case .providerUpdated: "Provider changed"
        case .sessionRevoked: "Session signed out"
        case .sessionsSignedOut: "Signed out of other sessions"
        case .signInCodeRequested: "Sign-in code requested"
        case .signInCompleted: "Signed in"
        case .signInFailed: "Sign-in refused"
        case .signInLinkRequested: "Magic link requested"
        case .signInStarted: "Sign-in started"
        case .signOut: "Signed out"
        case .signUpRefused: "Sign-up refused"
        case .testClockAdvanced: "Account's clock moved ahead by a test suite"
        case .testCodesRead: "Codes and links read by a test suite"
        case .testExpiredNow: "Credentials ended at once by a test suite"
        case .testFaultAdded: "Fault put in the way of requests"
        case .testFaultRemoved: "Fault taken away"
        case .testRequestsRead: "Request ledger read by a test suite"
        case .testReset: "People, sessions and mail wiped for a test run"
        case .testSeeded: "Accounts made from a seed file"
        case .testSecretIssued: "Sign-in secret handed to a test suite"
        case .testSignIn: "Signed in by a test suite"
        case .testUsersSearched: "Test users listed by a test suite"
        case .totpDisabled: "Authenticator app turned off"
        case .totpEnabled: "Authenticator app turned on"
        case .totpRecoveryCodesRegenerated: "Recovery codes regenerated"
        case .userSignedUp: "Signed up"
        case .guestUpgraded: "Guest account upgraded"
        case .verificationCompleted: "Email verified"
        case .verificationFailed: "Email verification refused"
        case .verificationRequested: "Verification mail requested"
        case .verificationSent: "Verification mail sent"
        }
    }

    private static let methods = [
        "password": "with password", "email_code": "with an email code", "magic_link": "with a magic link",
        "email_link": "with an email link", "totp": "with an authenticator code", "recovery_code": "with a recovery code",
        "provider": "with a provider", "impersonation": "by impersonation", "otp": "with an email code",
        "code": "with a code", "link": "with a link", "passkey": "with a passkey"
    ]

    private static let secondSteps = ["totp": "then an authenticator code", "recovery_code": "then a recovery code"]

    private static let reasons = [
        "invalid_credentials": "wrong password or unknown address", "locked": "account locked after too many tries",
        "rate_limited": "too many tries from this address", "email_not_verified": "email not verified",
        "disabled": "account disabled", "invalidCode": "wrong code", "codeExpired": "code expired or used",
        "email_exists": "address already has an account", "wrong_recovery_code": "wrong recovery code",
        "invalid_code": "wrong code", "wrong_password": "wrong password", "unknown_superuser": "not a staff address",
        "unknown_provider": "unknown provider", "expired": "expired"
    ]

    private static let waysIn = [
        "pocketbase-api": "PocketBase API", "insforge-api": "InsForge API", "descope-api": "Descope API",
        "supertokens-core": "SuperTokens core", "api": "Admin API", "console": "Console", "cli": "Command line",
        "descope-management": "Descope management API"
    ]
}
