import AuthCore
import Foundation
import Store

extension LocalAccounts {
    /// Validates the patch and the merged result together (every problem at once) and stores the
    /// merge in the same transaction that read the old profile.
    public func setProfile(userID: UserID, patch: [String: JSONValue]) async throws -> User {
        let patchProblems = ProfileRules.problems(inPatch: patch)
        let updated = try await database.updateProfile(userID: userID, at: clock()) { profile in
            let merged = profile.merging(patch)
            let problems = patchProblems + ProfileRules.problems(inMerged: merged)
            guard problems.isEmpty else { throw AuthError.validation(problems) }
            return merged
        }
        logger.info("profile updated", metadata: ["user": "\(userID)"])
        return updated.user
    }
}
