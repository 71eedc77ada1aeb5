/// Messages shown after a redirect, named by a fixed code in `?notice=` so a link can never put
/// arbitrary text on a Gatehouse page.
enum Notice: String {
    case welcome
    case verified
    case verifyFirst = "verify-first"
    case codeSent = "code-sent"
    case saved
    case signedOut = "signed-out"
    case linked
    case unlinked

    var message: String {
        switch self {
        case .welcome: return "Welcome! Your account is ready."
        case .verified: return "Your email address is verified. You're signed in."
        case .verifyFirst: return "Please verify your email address before signing in."
        case .codeSent: return "If that address has an account waiting for verification, a new email is on its way."
        case .saved: return "Profile saved."
        case .signedOut: return "You have been signed out."
        case .linked: return "The provider is now linked to your account."
        case .unlinked: return "The provider was unlinked from your account."
        }
    }
}
