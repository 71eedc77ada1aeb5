/// Every event a webhook endpoint can receive, by its name on the wire (`type` in the payload).
/// `user.created`, `user.updated`, `user.deleted` and `email.changed` of embedded accounts are
/// written by the store's triggers with the change itself; the rest, and those of a remote
/// backend's accounts, come from the act's audit event (`init?(audit:)`).
public enum WebhookEventType: String, CaseIterable, Sendable {
    case userCreated = "user.created"
    case userUpdated = "user.updated"
    case userDeleted = "user.deleted"
    case sessionCreated = "session.created"
    case sessionEnded = "session.ended"
    case signInFailed = "sign_in.failed"
    case passwordChanged = "password.changed"
    case passwordReset = "password.reset"
    case emailChanged = "email.changed"
    case mfaEnabled = "mfa.enabled"
    case mfaDisabled = "mfa.disabled"
    case passkeyAdded = "passkey.added"
    case passkeyRemoved = "passkey.removed"
    case providerLinked = "provider.linked"
    case providerUnlinked = "provider.unlinked"
    case impersonationStarted = "impersonation.started"
    case impersonationEnded = "impersonation.ended"
    case mailSent = "mail.sent"

    /// The event an audited act is, nil for acts no endpoint hears of (the console's own, apps',
    /// providers' settings, bulk acts — whose accounts' own rows still report each change).
    public init?(audit event: AuditEvent) {
        switch event {
        case .userSignedUp, .adminUserCreated: self = .userCreated
        case .profileUpdated, .adminUserUpdated, .adminUserVerified, .adminUserUnverified, .adminUserDisabled,
            .adminUserEnabled, .verificationCompleted, .accountProven, .adminUserTagged, .guestUpgraded:
            self = .userUpdated
        case .accountDeleted, .adminUserDeleted, .accountDisowned: self = .userDeleted
        case .signInCompleted, .appSessionOpened: self = .sessionCreated
        case .signOut, .sessionRevoked, .sessionsSignedOut: self = .sessionEnded
        case .signInFailed, .mfaFailed: self = .signInFailed
        case .passwordChanged, .adminUserPasswordSet: self = .passwordChanged
        case .passwordResetCompleted: self = .passwordReset
        case .emailChangeConfirmed: self = .emailChanged
        case .totpEnabled: self = .mfaEnabled
        case .totpDisabled, .adminUserTOTPReset: self = .mfaDisabled
        case .passkeyAdded: self = .passkeyAdded
        case .passkeyDeleted, .adminUserPasskeyDeleted: self = .passkeyRemoved
        case .externalAuthLinked: self = .providerLinked
        case .externalAuthUnlinked: self = .providerUnlinked
        case .impersonationStarted: self = .impersonationStarted
        case .impersonationStopped: self = .impersonationEnded
        case .verificationSent, .passwordResetRequested, .signInCodeRequested, .signInLinkRequested,
            .emailChangeRequested:
            self = .mailSent
        default: return nil
        }
    }
}
