import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `mgmt/auth/signin`, `signup` and `signup-in`: a session for an account as if it had signed in,
/// answered as Descope's `JWTResponse` (`TestSignInSecrets.signIn`/`signUp`); `signup` makes the
/// account (`user.name`, `emailVerified`) and refuses a taken address, `signup-in` signs in the
/// account an address has. `stepup`/`mfa` (which need a JWT Gatehouse would extend) are refused.
struct DescopeManagementAuthRoutes: Sendable {
    let management: DescopeManagement

    func register(on router: inout Router) {
        management.on(&router, .post, "/v1/mgmt/auth/signin") { call, key in
            guard call.body["stepup"] != .bool(true), call.body["mfa"] != .bool(true) else {
                throw DescopeAnswer(
                    400, DescopeCode.invalidArguments, "Invalid arguments", "Gatehouse does not take stepup or mfa here")
            }
            let session = try await secrets(key).signIn(email: try call.loginID(), request: call.request)
            return try await management.api.signedIn(session, amr: [], call: call, firstSeen: false)
        }
        for (route, orSignIn) in [("signup", false), ("signup-in", true)] {
            management.on(&router, .post, "/v1/mgmt/auth/\(route)") { call, key in
                let (session, created) = try await secrets(key).signUp(
                    email: try call.loginID(), name: call.userName(), verified: call.body["emailVerified"] == .bool(true),
                    orSignIn: orSignIn, request: call.request)
                return try await management.api.signedIn(session, amr: [], call: call, firstSeen: created)
            }
        }
    }

    private func secrets(_ key: ManagementKey) -> TestSignInSecrets {
        TestSignInSecrets(env: management.accounts, via: DescopeManagement.via, key: key)
    }
}
