import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The core's calls on an account's identity that supertokens-rownd and the SDK's account-linking
/// recipe make: Gatehouse maps no external ids onto its accounts (an account's id is its only id)
/// and links nothing, each account being one person's whole account already. So a mapping lookup
/// answers as a core with no mappings, making an account primary answers that it already is, and
/// removing a user deletes the account (`AppBackendActs.delete`).
struct SuperTokensIdentityRoutes: Sendable {
    let core: SuperTokensCore

    func register(on router: inout Router) {
        core.on(&router, .get, "/recipe/userid/map") { request, _ in
            _ = try SuperTokensCore.query(request, "userId")
            let type = try request.query.single("userIdType") ?? "ANY"
            guard ["SUPERTOKENS", "EXTERNAL", "ANY"].contains(type) else {
                throw CoreAnswer(400, "Field name 'userIdType' is invalid in JSON input")
            }
            return SuperTokensCore.status("UNKNOWN_MAPPING_ERROR")
        }
        core.on(&router, .post, "/recipe/accountlinking/user/primary") { _, body in
            let id = UserID(try SuperTokensCore.text(body, "recipeUserId"))
            let directory = UserDirectory(env: core.env.accounts)
            let user: User
            do {
                user = try await directory.user(id)
            } catch AuthError.userNotFound {
                throw CoreAnswer(400, "Unknown user id")
            }
            return SuperTokensCore.status(
                "OK", ["user": try await SuperTokensUser.of(user, in: directory).json, "wasAlreadyAPrimaryUser": .bool(true)])
        }
        core.on(&router, .post, "/user/remove") { request, body in
            _ = try await core.acts.delete(UserID(try SuperTokensCore.text(body, "userId")), request: request)
            return SuperTokensCore.status("OK")
        }
    }
}
