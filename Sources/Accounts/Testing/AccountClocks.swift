import AuthCore
import Foundation
import Logging
import Store

/// Each account's own time: the server's clock plus how far a test suite moved that account ahead
/// (`AccountClockControl`). Every expiry Gatehouse decides for an account — its sessions and refresh
/// tokens in every dialect, the `iat`/`exp` of the tokens it signs for it — asks `now(for:)`, so
/// moving one account's clock ends its sessions and leaves every other account's alone.
///
/// The offsets live in memory, read on every signed-in request without a database read (a server
/// with none moved answers as before), and in `account_clocks`, so a restart does not bring back
/// sessions that ended in the account's time.
public final class AccountClocks: @unchecked Sendable {
    /// The server's clock.
    public let clock: @Sendable () -> Date
    private let database: AppDatabase
    /// Seconds each moved account is ahead; guarded by `lock` (`Synchronization.Mutex` needs macOS 15).
    private var offsets: [UserID: TimeInterval]
    private let lock = NSLock()

    init(database: AppDatabase, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.database = database
        self.clock = clock
        do {
            offsets = try database.accountClockOffsets()
        } catch {
            logger.error("account clocks not read; every account starts on the server's time", metadata: ["error": "\(error)"])
            offsets = [:]
        }
    }

    /// `userID`'s time now.
    public func now(for userID: UserID) -> Date {
        clock().addingTimeInterval(offset(of: userID))
    }

    /// The time of the account whose id is `rawID` (a token's `sub`).
    public func now(forAccount rawID: String) -> Date { now(for: UserID(rawID)) }

    /// How many seconds `userID`'s clock is ahead of the server's.
    public func offset(of userID: UserID) -> TimeInterval {
        lock.withLock { offsets.isEmpty ? 0 : offsets[userID] ?? 0 }
    }

    /// Moves `userID`'s clock `seconds` further ahead, kept across restarts; the new offset.
    func advance(_ userID: UserID, by seconds: TimeInterval) async throws -> TimeInterval {
        let offset = lock.withLock {
            let moved = (offsets[userID] ?? 0) + seconds
            offsets[userID] = moved
            return moved
        }
        try await database.saveAccountClockOffset(offset, for: userID, at: clock())
        return offset
    }
}
