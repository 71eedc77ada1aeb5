import Foundation

/// A confirmed email change: the account with its new, verified address, and — when the caller
/// asked to keep its own session of that account — the session to go on with.
public struct EmailChangeConfirmation: Sendable, Hashable {
    public var user: User
    /// The kept session (or its replacement); nil when none was asked for or it was not this account's.
    public var session: AuthSession?

    public init(user: User, session: AuthSession?) {
        self.user = user
        self.session = session
    }
}
