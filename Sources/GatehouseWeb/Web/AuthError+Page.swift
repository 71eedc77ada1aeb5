import AuthCore
import Foundation

extension AuthError {
    /// What a page says when this error has no better place (field messages come from `.validation`).
    var pageMessage: String {
        switch self {
        case .invalidCredentials: return "That email and password don't match an account."
        case .emailNotVerified: return "Please verify your email address first."
        case .userNotFound: return "That account no longer exists."
        case .emailExists: return "An account with this email already exists."
        case .invalidCode: return "That code is not right. Check the newest email and try again."
        case .codeExpired: return "This code has expired or has already been used. Request a new one below."
        case .rateLimited(let wait): return "Too many attempts. Try again in \(Wait.describe(wait))."
        case .validation(let errors): return errors.map(\.message).joined(separator: " ")
        case .sessionExpired: return "Your session has ended. Please sign in again."
        case .sessionNotRefreshable: return "This session cannot be extended. Please sign in again."
        case .notSupported(let capability):
            return "\(capability.displayName) is not supported by the backend Gatehouse is connected to."
        case .magicLinkOpenedElsewhere(let email): return "Continue as \(email)?"
        case .network: return "The account service could not be reached. Try again in a moment."
        case .server: return "The account service had a problem. Try again in a moment."
        }
    }
}

/// Human wording for a wait in seconds.
enum Wait {
    static func describe(_ seconds: Int) -> String {
        if seconds < 60 { return seconds == 1 ? "1 second" : "\(seconds) seconds" }
        let minutes = (seconds + 59) / 60
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }

    /// The clock time `seconds` after `now`, as "HH:MM UTC" (the server does not know the reader's zone).
    static func clockTime(_ seconds: Int, after now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: now.addingTimeInterval(TimeInterval(seconds)))
        return String(format: "%02d:%02d UTC", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// A sign-in's back-off as the page says it, alike for every address: "try again in N s (at HH:MM UTC)".
    static func signInBackOff(_ seconds: Int, now: Date) -> String {
        "Too many tries from this device: try again in \(seconds) s (at \(clockTime(seconds, after: now)))."
    }
}
