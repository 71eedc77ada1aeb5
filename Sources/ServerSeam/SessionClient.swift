import AuthCore

/// Who a session is opened for, so a backend that keeps sessions (the embedded one) can describe
/// them in "where you are signed in" lists. Backends that keep none (PocketBase) ignore it.
public enum SessionClient: Sendable, Equatable {
    /// Backs one of Gatehouse's browser sessions, which is listed (with its device) instead.
    case browserSession
    /// An app or SDK signing in over an API, with what its request said about it.
    case app(userAgent: String?, ip: String?)
}

/// A backend that keeps sessions of its own and describes them by who they were opened for: the
/// embedded one. Backends that keep none (PocketBase, InsForge) are used as they are.
public protocol SessionDescribing: AuthAPI {
    /// This backend, opening its sessions for `client`.
    func openingSessions(for client: SessionClient) -> any AuthAPI
}

extension AuthAPI {
    /// This backend, opening its sessions for `client` where it describes them (`SessionDescribing`);
    /// else the backend itself.
    public func opening(for client: SessionClient) -> any AuthAPI {
        (self as? any SessionDescribing)?.openingSessions(for: client) ?? self
    }
}

/// A backend that can let one way in open sessions for accounts that have not verified their
/// address yet — the embedded one, whose own rule refuses them while `--verification` is on. An
/// API whose contract leaves verification to the app (Descope's, SuperTokens' core) uses it;
/// backends without it keep their own rule.
public protocol UnverifiedSessions: AuthAPI {
    /// This backend, signing unverified accounts in and opening a session at sign-up without
    /// mailing a verification (the app verifies the address its own way).
    func admittingUnverifiedAccounts() -> any AuthAPI
}

extension AuthAPI {
    /// This backend admitting unverified accounts where it can (`UnverifiedSessions`); else itself.
    public func admittingUnverifiedAccounts() -> any AuthAPI {
        (self as? any UnverifiedSessions)?.admittingUnverifiedAccounts() ?? self
    }
}
