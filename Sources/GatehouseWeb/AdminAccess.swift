import HTTPServer
import Secrets

/// Who may use `/_/api/providers` and `/_/api/apps` until the console has superusers: the
/// bearer of the admin token when one is configured, else only peers on loopback.
struct AdminAccess: Sendable {
    let token: String?

    func allows(_ request: Request) -> Bool {
        guard let token else { return request.isLoopbackPeer }
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return false }
        return KeyedHash.constantTimeEquals(String(header.dropFirst(7)), token)
    }

    static let refusal = APIError.response(
        status: 401, code: "UNAUTHORIZED",
        message: "Send the admin token as 'Authorization: Bearer TOKEN' (or call from loopback when none is configured).")
}
