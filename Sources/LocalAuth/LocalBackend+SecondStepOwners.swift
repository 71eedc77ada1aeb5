import AuthCore
import ServerSeam

extension LocalBackend: SecondStepOwners {
    public func owner(ofSecondStep challengeID: String) async throws -> UserID? {
        try await accounts.owner(ofChallenge: challengeID)
    }
}
