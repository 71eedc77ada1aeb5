/// Who a session is opened for, so a backend that keeps sessions (the embedded one) can describe
/// them in "where you are signed in" lists. Backends that keep none (PocketBase) ignore it.
public enum SessionClient: Sendable, Equatable {
    /// Backs one of Gatehouse's browser sessions, which is listed (with its device) instead.
    case browserSession
    /// An app or SDK signing in over an API, with what its request said about it.
    case app(userAgent: String?, ip: String?)
}
