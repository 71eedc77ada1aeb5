import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The core's session management reads and writes: one session's information, a user's session
/// handles, and the app's data on a session (`AppSessions.data(handle:)`, kept in the file). Every
/// answer about a handle that is not live is `UNAUTHORISED`, as the core's.
struct SuperTokensSessionInfoRoutes: Sendable {
    let core: SuperTokensCore
    private var sessions: AppSessions { core.tokens.sessions }

    func register(on router: inout Router) {
        core.on(&router, .get, "/recipe/session") { request, _ in
            let handle = try SuperTokensCore.query(request, "sessionHandle")
            guard let signedIn = await sessions.current(handle: handle) else { return Self.unauthorised() }
            let data = try await sessions.data(handle: handle)
            let userID = JSONValue.string(signedIn.user.id.rawValue)
            return SuperTokensCore.status(
                "OK",
                [
                    "sessionHandle": .string(handle), "userId": userID, "recipeUserId": userID, "tenantId": "public",
                    "userDataInJWT": .object(data?.inJWT ?? [:]), "userDataInDatabase": .object(data?.inDatabase ?? [:]),
                    "expiry": Self.milliseconds(signedIn.session.expiresAt),
                    "timeCreated": Self.milliseconds(signedIn.session.createdAt)
                ])
        }
        core.on(&router, .get, "/recipe/session/user", tenantScoped: true) { request, _ in
            let handles = try await sessions.handles(of: UserID(try SuperTokensCore.query(request, "userId")))
            return SuperTokensCore.status("OK", ["sessionHandles": .array(handles.map(JSONValue.string))])
        }
        core.on(&router, .put, "/recipe/session/data") { _, body in
            try await update(body, key: "userDataInDatabase") { handle, data in
                try await sessions.setData(handle: handle, inDatabase: data)
            }
        }
        core.on(&router, .put, "/recipe/jwt/data") { _, body in
            try await update(body, key: "userDataInJWT") { handle, data in
                try await sessions.setData(
                    handle: handle, inJWT: data.filter { !SuperTokensTokens.protectedClaims.contains($0.key) })
            }
        }
    }

    /// Sets the live session's data under `key` (an object, as the core requires).
    private func update(
        _ body: [String: JSONValue], key: String, _ set: (String, [String: JSONValue]) async throws -> Void
    ) async throws -> Response {
        let handle = try SuperTokensCore.text(body, "sessionHandle")
        guard case .object(let data)? = body[key] else {
            throw CoreAnswer(400, "Field name '\(key)' is invalid in JSON input")
        }
        guard await sessions.current(handle: handle) != nil else { return Self.unauthorised() }
        try await set(handle, data)
        return SuperTokensCore.status("OK")
    }

    private static func unauthorised() -> Response {
        SuperTokensCore.status("UNAUTHORISED", ["message": "Session does not exist."])
    }

    private static func milliseconds(_ date: Date) -> JSONValue {
        .number((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
