import AuthCore

/// An account created, updated or deleted, by whichever front-end or process made the change:
/// what a live view of the users (PocketBase's realtime record events) is told.
public struct UserChange: Sendable, Hashable {
    public enum Action: String, Sendable, Hashable {
        case create, update, delete
    }

    public var action: Action
    /// The account after the change; for a delete, as it was.
    public var user: User
    /// Where the change stands in its backend's order of changes.
    public var position: UserChangePosition

    public init(action: Action, user: User, position: UserChangePosition) {
        self.action = action
        self.user = user
        self.position = position
    }
}

/// A place in a backend's order of account changes; later changes have greater positions.
public struct UserChangePosition: Sendable, Hashable, Comparable {
    public let sequence: Int64

    public init(_ sequence: Int64) { self.sequence = sequence }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.sequence < rhs.sequence }
}

/// A backend's account changes in the order they were made (`Capability.userChanges`): a reader
/// takes `latest()` once, then asks for what came after the last position it saw.
public protocol UserChangeFeed: Sendable {
    /// The position of the newest change made so far: changes after it are the ones still to come.
    func latest() async throws -> UserChangePosition
    /// The changes after `position`, oldest first, waiting until at least one was made; `through`
    /// is the position to ask from next (it may pass changes left out: a create or update of an
    /// account deleted since, whose delete follows). Throws `CancellationError` when the waiting
    /// task is cancelled.
    func changes(after position: UserChangePosition) async throws -> (changes: [UserChange], through: UserChangePosition)
    /// Whether the account as `change` left it is among `query`'s `ids` and passes its `filter`,
    /// as `listUsers` would have answered right after the change (a filtered live view). An
    /// unreadable filter throws `.validation`, as `listUsers` does.
    func passes(_ change: UserChange, _ query: UserQuery) async throws -> Bool
}

/// An admin side that keeps a feed of its account changes (`Capability.userChanges`): the embedded
/// backend, whose SQLite triggers log every change. Remote backends keep none here: PocketBase's
/// own realtime events are PocketBase's, and proxy mode has no feed.
public protocol UserChangeSource: Sendable {
    /// Every account change as it is made, by any front-end or process.
    func changeFeed() throws -> any UserChangeFeed
}

extension AuthAdminAPI {
    /// Every account change as it is made, by any front-end or process (`.userChanges`); for live
    /// views such as PocketBase's realtime record events. `.notSupported(.userChanges)` where the
    /// admin side is no `UserChangeSource`.
    public func userChanges() throws -> any UserChangeFeed {
        guard let source = self as? any UserChangeSource else { throw AuthError.notSupported(.userChanges) }
        return try source.changeFeed()
    }
}
