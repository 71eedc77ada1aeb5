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

    /// The time of `userID`'s account when a ceremony waits on one (a passkey sign-in asked for an
    /// address, a passkey or provider added while signed in), else the server's (a sign-up, a
    /// sign-in whose account the authenticator or provider will name).
    func now(forAccountIfAny userID: UserID?) -> Date { userID.map(now(for:)) ?? clock() }

    /// The time of the account whose id is `rawID` (a token's `sub`).
    public func now(forAccount rawID: String) -> Date { now(for: UserID(rawID)) }

    /// The time of the account at `email`, the server's for an address without one: the budgets
    /// kept per address (mails to it, its password's wrong tries) count in it. No read while no
    /// account's clock was moved.
    func now(forAddress email: String) async -> Date {
        guard database.accountClockOffsets.anyMoved,
            let id = try? await database.userIDs(normalizedEmails: [EmailAddress.normalize(email)]).first
        else { return clock() }
        return now(for: id)
    }

    /// Moves `userID`'s clock `seconds` further ahead, kept across restarts; the new offset.
    func advance(_ userID: UserID, by seconds: TimeInterval) async throws -> TimeInterval {
        try await database.advanceAccountClock(userID, by: seconds, at: clock())
    }
}
