import HTTPServer

/// What an impersonation session may not do: change how the user signs in (DESIGN.md: no credential
/// changes while impersonating), sign the user out of their own devices, or sign the user in to an
/// app (the app's session would outlive the impersonation and name no superuser).
public enum ImpersonationRefusal: HTTPResponseError {
    case credentialChange
    case sessionChange
    case appSignIn

    public var status: Int { 403 }
    public var message: String {
        switch self {
        case .credentialChange: "Sign-in methods can't be changed while viewing as this user. Stop impersonating first."
        case .sessionChange: "The user's sessions can't be signed out while viewing as this user. Use the console instead."
        case .appSignIn:
            "Apps can't be signed in while impersonating this user: the app would get the user's own session. "
                + "Stop impersonating first."
        }
    }
}
