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
    public static func isStale(_ signedIn: SignedIn, now: Date) -> Bool {
        now.timeIntervalSince(signedIn.session.createdAt) > window
    }
}

/// An act that adds a way in, asked for in a session older than `RecentSignIn.window`.
public struct FreshSignInRequired: HTTPResponseError {
    public enum Act: Sendable {
        case setPassword
        case addPasskey
        case linkProvider
    }

    public let act: Act

    public init(_ act: Act) { self.act = act }

    public var status: Int { 403 }
    public var message: String {
        let what =
            switch act {
            case .setPassword: "set a password"
            case .addPasskey: "add a passkey"
            case .linkProvider: "link a provider"
            }
        return "To \(what), sign in again first: you signed in more than \(Int(RecentSignIn.window / 60)) minutes ago."
    }
}
