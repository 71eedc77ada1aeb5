import AuthCore
import Foundation

/// How far a test suite moved each account's clock ahead (`account_clocks`), in memory: every
/// per-account expiry reads it, so a signed-in request costs no database read for it, and one value
/// per database serves every module that holds the database (the operations, the embedded backend).
public final class AccountClockOffsets: @unchecked Sendable {
    /// Seconds each moved account is ahead; guarded by `lock` (`Synchronization.Mutex` needs macOS 15).
    private var offsets: [UserID: TimeInterval]
    private let lock = NSLock()

    init(_ offsets: [UserID: TimeInterval]) { self.offsets = offsets }

    /// How many seconds `userID`'s clock is ahead of the server's (0 for an account never moved).
    public func offset(of userID: UserID) -> TimeInterval {
        lock.withLock { offsets.isEmpty ? 0 : offsets[userID] ?? 0 }
    }

    /// Whether any account's clock was moved: while none was, no account's time needs looking up.
    public var anyMoved: Bool { lock.withLock { !offsets.isEmpty } }

    func set(_ offset: TimeInterval, for userID: UserID) {
        lock.withLock { offsets[userID] = offset }
    }

    func removeAll() {
        lock.withLock { offsets.removeAll() }
    }
}
