import Foundation

/// How long a door's sessions live and how long one may sit unused: values the one session store
/// (`SessionBindings`) reads, as sign-in owners read `WayInPolicy`, so a door with stricter windows
/// is a policy of that door rather than a store of its own.
struct SessionWindows: Sendable {
    /// No session lives longer than this from its sign-in.
    let lifetime: TimeInterval
    /// A session left alone this long ends (measured from its last request).
    let idleTimeout: TimeInterval

    /// Staff's doors — the console, the admin API, PocketBase's `_superusers`: a working day, and
    /// half an hour left alone.
    static let staff = SessionWindows(lifetime: 12 * 3600, idleTimeout: 30 * 60)
}
