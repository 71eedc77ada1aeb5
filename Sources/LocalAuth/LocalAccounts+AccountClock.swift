import AuthCore
import Foundation
import Store

extension LocalAccounts {
    /// The time of the account `userID` (the server's for none): a test suite may have moved it
    /// ahead (`AccountClockOffsets`), and every code and link of the account is minted and checked in it.
    func now(for userID: UserID?) -> Date {
        userID.map { database.now(for: $0, clock: clock) } ?? clock()
    }
}
