import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The core's user-metadata recipe over the Gatehouse profile: the metadata is the profile's
/// key/values (the console shows them), updated by shallow merge as the core merges it.
struct SuperTokensMetadataRoutes: Sendable {
    let core: SuperTokensCore

    func register(on router: inout Router) {
        core.on(&router, .get, "/recipe/user/metadata") { request, _ in
            let id = UserID(try SuperTokensCore.query(request, "userId"))
            do {
                let user = try await UserDirectory(env: core.env.accounts).user(id)
                return SuperTokensCore.status("OK", ["metadata": .object(user.profile.fields)])
            } catch AuthError.userNotFound {
                // The core keeps metadata for any id; an id with no Gatehouse account has none.
                return SuperTokensCore.status("OK", ["metadata": .object([:])])
            }
        }
        core.on(&router, .put, "/recipe/user/metadata") { request, body in
            let id = UserID(try SuperTokensCore.text(body, "userId"))
            guard case .object(let patch)? = body["metadataUpdate"] else {
                throw CoreAnswer(400, "Field name 'metadataUpdate' is invalid in JSON input")
            }
            let user = try await update(id, patch, request)
            return SuperTokensCore.status("OK", ["metadata": .object(user.profile.fields)])
        }
        core.on(&router, .post, "/recipe/user/metadata/remove") { request, body in
            let id = UserID(try SuperTokensCore.text(body, "userId"))
            let keys = (try? await UserDirectory(env: core.env.accounts).user(id))?.profile.fields.keys ?? [:].keys
            if !keys.isEmpty { _ = try await update(id, Dictionary(uniqueKeysWithValues: keys.map { ($0, .null) }), request) }
            return SuperTokensCore.status("OK")
        }
    }

    private func update(_ id: UserID, _ patch: [String: JSONValue], _ request: Request) async throws -> User {
        do {
            return try await core.acts.updateProfile(id, patch, request: request)
        } catch AuthError.userNotFound {
            throw CoreAnswer(400, "Gatehouse keeps metadata for its accounts only: no account \(id.rawValue)")
        }
    }
}
