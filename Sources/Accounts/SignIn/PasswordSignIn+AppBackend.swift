import AuthCore
import Foundation
import HTTPServer

extension PasswordSignIn {
    /// A password checked for an app's own backend, which opens the session itself next (a
    /// SuperTokens backend asks the core to check the password, then to open a session): the
    /// sign-in's admission, budgets and audit are `attempt`'s, and the backend session the check
    /// opened is signed out at once. An account with a second step throws `.mfaRequired`.
    public func checkedUser(email: String, password: String, request: Request) async throws -> User {
        switch try await attempt(email: email, password: password, request: request) {
        case .session(let session):
            return await AppBackendActs(env: env, via: via ?? "").handOver(session)
        case .secondStep(let challenge):
            throw AuthError.mfaRequired(challenge)
        }
    }
}
