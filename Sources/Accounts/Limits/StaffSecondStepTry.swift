import Foundation
import Logging
import Store

/// One try at a superuser's second step, on the people's rules (`TOTPRules`): a slot of the
/// pending step's tries and one of the superuser's wrong steps this hour, taken in one transaction
/// before any code is compared, so parallel tries can never compare more codes than the rules
/// allow. A right code gives the hourly slot back (`settleRight`): only wrong steps stay counted,
/// and a try in flight counts as wrong until it is settled — as `mfa_challenges` count for people.
extension Budgets {
    public enum StaffSecondStepAdmission: Sendable, Equatable {
        /// The code may be compared; `accountEvent` is the hourly slot to give back when it is right.
        case open(accountEvent: Int64?)
        /// The pending step has had its tries (or the counts cannot be read): sign in again.
        case stepSpent
        /// The superuser had too many wrong second steps this hour: answered like a wrong code.
        case accountThrottled
    }

    /// Takes a try of the pending step `step` (a console nonce, or `superuser:<id>` for
    /// `/_/api/auth`) and of the superuser's hourly ceiling, both or neither.
    public func beginStaffSecondStep(step: String, superuserID: String) async -> StaffSecondStepAdmission {
        guard enabled else { return .open(accountEvent: nil) }
        let now = clock()
        let perStep = Budget.staffSecondSteps(step)
        let perAccount = Budget.staffWrongSecondSteps(superuserID: superuserID)
        do {
            return try await database.withRateLedger { ledger in
                let stepWindow = try ledger.window(key: perStep.key, since: now.addingTimeInterval(-perStep.rule.window))
                if Self.wait(stepWindow, perStep.rule, now: now) != nil { return .stepSpent }
                let accountWindow = try ledger.window(
                    key: perAccount.key, since: now.addingTimeInterval(-perAccount.rule.window))
                if Self.wait(accountWindow, perAccount.rule, now: now) != nil {
                    // The refused try still spends one of the step's, so a pending step cannot wait it out.
                    try ledger.record(key: perStep.key, at: now)
                    return .accountThrottled
                }
                try ledger.record(key: perStep.key, at: now)
                return .open(accountEvent: try ledger.record(key: perAccount.key, at: now))
            }
        } catch {
            logger.error("rate-limit counts unreadable; refusing the second step", metadata: ["error": "\(error)"])
            return .stepSpent
        }
    }

    /// The code was right: its hourly slot is given back.
    public func settleRight(_ admission: StaffSecondStepAdmission) async {
        guard case .open(let event?) = admission else { return }
        do {
            try await database.withRateLedger { ledger in try ledger.forget(ids: [event]) }
        } catch {
            logger.error("could not give back a second step's slot", metadata: ["error": "\(error)"])
        }
    }
}
