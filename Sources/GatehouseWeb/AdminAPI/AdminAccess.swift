import HTTPServer
import Secrets

/// Who may use `/_/api/providers` and `/_/api/apps`: a superuser's console token (as for every
/// other admin endpoint), or the bearer of the admin token when one is configured, else peers
/// on loopback.
struct AdminAccess: Sendable {
    let token: String?
    let console: ConsoleSessions

    /// The superuser behind the request when a console token was sent; nil for the other two ways in.
    func staff(_ request: Request) async -> Staff? {
        await console.fromBearer(request)
    }

    func allows(_ request: Request) async -> Bool {
        if allowsWithoutConsole(request) { return true }
        return await staff(request) != nil
    }

    private func allowsWithoutConsole(_ request: Request) -> Bool {
        guard let token else { return request.isLoopbackPeer }
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return false }
        return KeyedHash.constantTimeEquals(String(header.dropFirst(7)), token)
    }

    static let refusal = APIError.response(
        status: 401, code: "UNAUTHORIZED",
        message: "Send a superuser token (POST /_/api/auth) or the admin token as 'Authorization: Bearer TOKEN' "
            + "(or call from loopback when no admin token is configured).")
}
