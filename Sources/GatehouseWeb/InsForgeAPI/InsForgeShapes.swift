import AuthCore
import Foundation
import HTTPServer

/// InsForge's `client_type`: where the app runs. Web apps keep the refresh token in an HttpOnly
/// cookie; the others get it in the body.
enum ClientType: String, Sendable {
    case web, mobile, desktop, server
}

/// An account as InsForge's API writes it (ISO-8601 dates: its Swift SDK drops a whole response
/// whose dates it cannot read).
struct InsForgeUser: Encodable {
    var id, email: String
    var emailVerified: Bool
    var providers: [String]
    var createdAt, updatedAt: Date
    var profile: Profile
    var metadata: [String: String]

    init(_ user: User, providers: [String]) {
        id = user.id.rawValue
        email = user.email
        emailVerified = user.emailVerified
        self.providers = providers
        createdAt = user.createdAt
        updatedAt = user.updatedAt
        profile = user.profile
        metadata = [:]
    }
}

/// InsForge's auth response.
struct AuthResponse: Encodable {
    var user: InsForgeUser
    var accessToken: String
    /// Only for non-web clients (web ones get the `insforge_refresh_token` cookie).
    var refreshToken: String?
    /// Only for web clients: sent back as `X-CSRF-Token` on refresh and logout.
    var csrfToken: String?
    var requireEmailVerification: Bool
    var redirectTo: String?
}

/// InsForge's error envelope: `{"error", "message", "statusCode", "nextActions"}` — `message` is
/// always there (its Swift SDK drops a body without one).
enum InsForgeError {
    private struct Body: Encodable {
        var error: String
        var message: String
        var statusCode: Int
        var nextActions: String?
    }

    static func response(_ status: Int, _ code: String, _ message: String, nextActions: String? = nil) -> Response {
        (try? .json(Body(error: code, message: message, statusCode: status, nextActions: nextActions), status: status))
            ?? .text(message, status: status)
    }

    /// Everything under `/api/auth` that no handler answered itself: decode errors, unknown routes,
    /// wrong methods, a test-controls fault. A 401 carries InsForge's own code, as its refusals do.
    static let renderer: Router.ErrorRenderer = { status, message in
        let code =
            switch status {
            case 400: "INVALID_INPUT"
            case 401: "AUTH_UNAUTHORIZED"
            default: APIError.code(for: status)
            }
        return response(status, code, message)
    }

    /// A sign-in that owes its second step: InsForge's SDK has none, so the sign-in stops here.
    static let secondStepOwed = response(401, "AUTH_MFA_REQUIRED", "A second sign-in step is required.")

    /// A seam error in InsForge's words. A wrong password and an unknown address read alike, and so
    /// do a dead code and one for an unknown address.
    static func response(for error: AuthError) -> Response {
        switch error {
        case .invalidCredentials: return response(401, "AUTH_UNAUTHORIZED", "Invalid credentials")
        case .emailNotVerified:
            return response(
                403, "FORBIDDEN", "Email verification required",
                nextActions: "Verify the email with the code or link we sent, or request a new one.")
        case .userNotFound: return response(404, "NOT_FOUND", "User not found")
        case .emailExists: return response(409, "AUTH_EMAIL_EXISTS", "An account with this email already exists")
        case .validation(let fields):
            let text = fields.map { "\($0.field): \($0.message)" }.joined(separator: " ")
            return response(400, "INVALID_INPUT", text.isEmpty ? "Invalid input" : text)
        // One answer for a wrong, dead or unknown code: telling them apart tells which addresses
        // have an account (a dead code has one, an unknown address none). Clients read it as a wrong
        // code (the client core's `InsForgeHTTP` takes "expired" in the text for a dead one).
        case .invalidCode, .codeExpired:
            return response(400, "AUTH_INVALID_OTP", "That code does not work: it is wrong, used or out of date.")
        case .rateLimited(let wait):
            return response(429, "TOO_MANY_REQUESTS", "Too many attempts. Try again in \(wait) seconds.").retrying(after: wait)
        case .sessionExpired, .sessionNotRefreshable:
            return response(401, "AUTH_UNAUTHORIZED", "The session has ended. Sign in again.")
        case .notSupported(let capability):
            return response(
                501, "NOT_SUPPORTED", "\(capability.displayName) is not supported by the backend Gatehouse is connected to.")
        case .magicLinkOpenedElsewhere:
            return response(401, "AUTH_UNAUTHORIZED", "Open the link in the browser that asked for it.")
        case .network, .server: return response(502, "BACKEND_UNAVAILABLE", "The account service could not be reached.")
        }
    }
}
