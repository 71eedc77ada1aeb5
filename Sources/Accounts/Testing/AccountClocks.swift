import AuthCore
import Foundation
import Store

/// Each account's own time: the server's clock plus how far a test suite moved that account ahead
/// (`AccountClockControl`). Every expiry Gatehouse decides for an account — its sessions and
/// refresh tokens in every dialect, the `iat`/`exp` of the tokens it signs for it, its mailed codes
/// and links (the embedded backend reads the same offsets) — asks `now(for:)`, so moving one
/// account's clock ends what would have ended after that wait and leaves every other account alone.
///
/// The offsets live in memory (`AccountClockOffsets`: no database read per request, and a server
/// with none moved answers as before) and in `account_clocks`, so a restart does not bring back
/// what ended in the account's time.
public struct AccountClocks: Sendable {
    /// The server's clock.
    let clock: @Sendable () -> Date
    let database: AppDatabase

    /// `userID`'s time now.
    public func now(for userID: UserID) -> Date { database.now(for: userID, clock: clock) }

    /// The time of the account whose id is `rawID` (a token's `sub`).
    public func now(forAccount rawID: String) -> Date { now(for: UserID(rawID)) }

    /// Moves `userID`'s clock `seconds` further ahead, kept across restarts; the new offset.
    func advance(_ userID: UserID, by seconds: TimeInterval) async throws -> TimeInterval {
        try await database.advanceAccountClock(userID, by: seconds, at: clock())
    }
}
