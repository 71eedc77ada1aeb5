import Foundation
import HTTPServer

/// Acts that give an account a lasting way in on a session's word alone — a first password, a new
/// passkey, a linked provider — need that session to be a recent sign-in: a browser left signed in,
/// or a taken cookie, must not give itself a way in that outlives the session. The person signs in
/// again instead.
public enum RecentSignIn {
    /// How long after signing in a session may add a way in on its own word.
    public static let window: TimeInterval = 15 * 60

    /// Whether `signedIn` began longer than `window` before `now`.
    static func isStale(_ signedIn: SignedIn, now: Date) -> Bool {
        isStale(begun: signedIn.session.createdAt, now: now)
    }

    /// Whether a session begun at `begun` is older than `window` at `now`.
    static func isStale(begun: Date, now: Date) -> Bool {
        now.timeIntervalSince(begun) > window
    }
}

/// An act that adds a way in, asked for in a session older than `RecentSignIn.window`.
/// On the console the superuser confirms their password in place instead (`StaffRecentSignIn`).
public struct FreshSignInRequired: HTTPResponseError {
    public enum Act: Sendable {
        case setPassword
        case addPasskey
        case linkProvider
        case addAuthenticatorApp
        case removeAuthenticatorApp
    }

    let act: Act
    /// Asked on the console, where the remedy is the password again rather than a new sign-in.
    let onConsole: Bool

    public init(_ act: Act, onConsole: Bool = false) {
        self.act = act
        self.onConsole = onConsole
    }

    public var status: Int { 403 }
    public var message: String {
        let what =
            switch act {
            case .setPassword: "set a password"
            case .addPasskey: "add a passkey"
            case .linkProvider: "link a provider"
            case .addAuthenticatorApp: "set up an authenticator app"
            case .removeAuthenticatorApp: "turn off the authenticator app"
            }
        let remedy = onConsole ? "confirm your password" : "sign in again"
        return "To \(what), \(remedy) first: you signed in more than \(Int(RecentSignIn.window / 60)) minutes ago."
    }
}
