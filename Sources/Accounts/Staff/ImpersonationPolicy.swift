import AuthCore
import Foundation

/// Who may be impersonated: never a superuser (which covers oneself), never from inside another
/// impersonation, never a disabled account, and only where the backend can. `ImpersonationStart`
/// asks it before every start; the console's user page asks it to show or explain the buttons.
public struct ImpersonationPolicy: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// Why an impersonation may not start; `message` is what every front-end says (with a 403).
    public enum Refusal: Error, Equatable, Sendable {
        case unsupported
        case superuser
        case alreadyImpersonating
        case disabled

        public var message: String {
            switch self {
            case .unsupported: "Impersonation is not supported by this backend."
            case .superuser: "Superusers can't be impersonated."
            case .alreadyImpersonating: "Stop the current impersonation before starting another."
            case .disabled: "Disabled accounts can't be impersonated."
            }
        }
    }

    /// Why `user` may not be impersonated now, or nil when they may; `impersonating` is whether
    /// the asking browser is itself inside an impersonation.
    public func refusal(of user: User, impersonating: Bool) async throws -> Refusal? {
        guard env.backend.capabilities.contains(.impersonation) else { return .unsupported }
        if try await env.database.isSuperuser(email: user.email) { return .superuser }
        if impersonating { return .alreadyImpersonating }
        if user.disabled { return .disabled }
        return nil
    }
}
