import AuthCore

/// A backend that can name the account a pending second step belongs to, so a refused second step
/// is recorded against that account (staff find it on the user page). The embedded backend has it.
public protocol SecondStepOwners: Sendable {
    /// The account whose sign-in `challengeID` continues; nil for an unknown challenge.
    func owner(ofSecondStep challengeID: String) async throws -> UserID?
}
