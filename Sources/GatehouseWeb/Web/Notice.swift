/// Messages shown after a redirect, named by a fixed code in `?notice=` so a link can never put
/// arbitrary text on a Gatehouse page.
enum Notice: String {
    case welcome
    case verified
    case verifiedSignIn = "verified-sign-in"
    case verifyFirst = "verify-first"
    case codeSent = "code-sent"
    case saved
    case signedOut = "signed-out"
    case userSaved = "user-saved"
    case verifiedSet = "verified-set"
    case unverifiedSet = "unverified-set"
    case verificationSent = "verification-sent"
    case passwordSet = "password-set"
    case userDisabled = "user-disabled"
    case userEnabled = "user-enabled"
    case userDeleted = "user-deleted"
    case sessionRevoked = "session-revoked"
    case sessionsRevoked = "sessions-revoked"
    case providerRemoved = "provider-removed"
    case impersonationStopped = "impersonation-stopped"
    case linked
    case unlinked
    case providerCreated = "provider-created"
    case providerModeChanged = "provider-mode-changed"
    case providerDeleted = "provider-deleted"
    case appCreated = "app-created"
    case appDeleted = "app-deleted"
    case sessionSignedOut = "session-signed-out"
    case otherSessionsSignedOut = "other-sessions-signed-out"
    case signedOutEverywhere = "signed-out-everywhere"
    case signInCodeSent = "sign-in-code-sent"

    var message: String {
        switch self {
        case .welcome: return "Welcome! Your account is ready."
        case .verified: return "Your email address is verified. You're signed in."
        case .verifiedSignIn: return "Your email address is verified. Sign in to continue."
        case .verifyFirst: return "Please verify your email address before signing in."
        case .codeSent: return "If that address has an account waiting for verification, a new email is on its way."
        case .saved: return "Profile saved."
        case .signedOut: return "You have been signed out."
        case .userSaved: return "Profile saved."
        case .verifiedSet: return "Marked as verified."
        case .unverifiedSet: return "Marked as unverified."
        case .verificationSent: return "A new verification email is in the mailbox."
        case .passwordSet: return "Password set. The user's other sessions were signed out."
        case .userDisabled: return "Account disabled. Every session of this user has ended."
        case .userEnabled: return "Account enabled."
        case .userDeleted: return "User deleted."
        case .sessionRevoked: return "Session revoked."
        case .sessionsRevoked: return "All sessions revoked."
        case .providerRemoved: return "Linked account removed."
        case .impersonationStopped: return "Impersonation stopped."
        case .linked: return "The provider is now linked to your account."
        case .unlinked: return "The provider was unlinked from your account."
        case .providerCreated: return "Provider added."
        case .providerModeChanged: return "Provider mode changed."
        case .providerDeleted: return "Provider deleted."
        case .appCreated: return "App registered."
        case .appDeleted: return "App deleted."
        case .sessionSignedOut: return "That session is signed out."
        case .otherSessionsSignedOut: return "You're signed out everywhere else."
        case .signedOutEverywhere: return "You're signed out everywhere."
        case .signInCodeSent: return "If that address can sign in here, a code is on its way."
        }
    }
}
