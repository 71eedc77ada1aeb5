import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// The core's session recipe: create, verify, refresh (rotating; a rotated refresh token presented
/// again is theft, and its session ends), remove, regenerate.
struct SuperTokensSessionRoutes: Sendable {
    let core: SuperTokensCore
    var tokens: SuperTokensTokens { core.tokens }

    func register(on router: inout Router) {
        core.on(&router, .post, "/recipe/session", tenantScoped: true, create)
        core.on(&router, .post, "/recipe/session/verify", verify)
        core.on(&router, .post, "/recipe/session/refresh", refresh)
        core.on(&router, .post, "/recipe/session/remove", tenantScoped: true, remove)
        core.on(&router, .post, "/recipe/session/regenerate", regenerate)
    }

    /// A session for a user the app's backend signed in through this core.
    private func create(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let userID = try SuperTokensCore.text(body, "userId")
        let userData = try Self.object(body, "userDataInJWT")
        let dynamic = try SuperTokensCore.flag(body, "useDynamicSigningKey", default: true)
        let antiCsrf = try SuperTokensCore.flag(body, "enableAntiCsrf") ? SecureRandom.token() : nil
        let opened: AppSessions.Opened
        do {
            opened = try await tokens.sessions.openForAppBackend(
                UserID(userID), request: request, lifetime: tokens.accessLifetime, via: SuperTokensCore.via)
        } catch AuthError.userNotFound, AuthError.invalidCredentials {
            // The core opens sessions for ids it does not know; Gatehouse's sessions are its accounts'.
            return SuperTokensCore.status("UNAUTHORISED", ["message": "No such user, or the account is disabled"])
        }
        try await tokens.sessions.setData(
            handle: opened.handle, inJWT: userData, inDatabase: try Self.object(body, "userDataInDatabase"))
        let minted = try tokens.mint(opened, userData: userData, antiCsrf: antiCsrf, dynamic: dynamic)
        return .json(raw: JSONValue.object(minted.body()).serialized)
    }

    /// Checks an access token: its signature and expiry always, the session itself when the SDK
    /// asks (`checkDatabase`) or the token is the first after a refresh (`parentRefreshTokenHash1`),
    /// which is then swapped for one without it.
    private func verify(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let token = try SuperTokensCore.text(body, "accessToken")
        guard let claims = tokens.claims(of: token), let handle = claims["sessionHandle"]?.stringValue,
            let userID = claims["sub"]?.stringValue, case .number(let exp)? = claims["exp"]
        else { return Self.tryRefresh("The access token is not this core's, or it was altered") }
        guard exp > tokens.now(of: claims).timeIntervalSince1970 else {
            return Self.tryRefresh("The access token expired")
        }
        if try SuperTokensCore.flag(body, "doAntiCsrfCheck"), try SuperTokensCore.flag(body, "enableAntiCsrf") {
            guard let sent = try SuperTokensCore.optionalText(body, "antiCsrfToken"), sent == claims["antiCsrfToken"]?.stringValue
            else { return Self.tryRefresh("anti-csrf check failed") }
        }
        let userData = SuperTokensTokens.userData(of: claims)
        var session: [String: JSONValue] = [
            "handle": .string(handle), "userId": .string(userID), "recipeUserId": .string(userID),
            "userDataInJWT": .object(userData), "expiryTime": .number(exp * 1000), "tenantId": "public"
        ]
        let promote = claims["parentRefreshTokenHash1"] != nil
        let checkDatabase = try SuperTokensCore.flag(body, "checkDatabase")
        guard promote || checkDatabase else {
            return SuperTokensCore.status("OK", ["session": .object(session)])
        }
        guard await tokens.sessions.current(handle: handle) != nil else {
            return SuperTokensCore.status("UNAUTHORISED", ["message": "Session has ended or has been revoked"])
        }
        guard promote else { return SuperTokensCore.status("OK", ["session": .object(session)]) }
        // The token minted by a refresh, used for the first time: the same session without the parent's hash.
        var promoted = claims
        promoted["parentRefreshTokenHash1"] = nil
        let reissued = try tokens.sign(promoted, dynamic: tokens.isDynamic(token))
        session["expiryTime"] = .number(Double(reissued.expiry))
        return SuperTokensCore.status(
            "OK",
            [
                "session": .object(session),
                "accessToken": .object([
                    "token": .string(reissued.token), "expiry": .number(Double(reissued.expiry)),
                    "createdTime": .number(Double(reissued.createdTime))
                ])
            ])
    }

    /// A new token pair for a current refresh token; `TOKEN_THEFT_DETECTED` (and the session
    /// revoked) for one already rotated away, `UNAUTHORISED` for anything else.
    private func refresh(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let presented = try SuperTokensCore.text(body, "refreshToken")
        let dynamic = try SuperTokensCore.flag(body, "useDynamicSigningKey", default: true)
        let antiCsrf = try SuperTokensCore.flag(body, "enableAntiCsrf") ? SecureRandom.token() : nil
        switch try await tokens.rotate(presented, antiCsrf: antiCsrf, dynamic: dynamic, userData: { $1 }) {
        case .minted(let minted):
            // `JSONValue`'s writer: `JSONEncoder`'s bytes (sorted keys), at a fraction of a refresh's cost.
            return .json(raw: JSONValue.object(minted.body()).serialized)
        case .theft(let handle, let userID):
            return SuperTokensCore.status(
                "TOKEN_THEFT_DETECTED",
                ["session": .object(["handle": .string(handle), "userId": .string(userID), "recipeUserId": .string(userID)])])
        case .refused(let message):
            return SuperTokensCore.status("UNAUTHORISED", ["message": .string(message)])
        }
    }

    /// Ends sessions by handle, or every session of a user (every way in: Gatehouse's sign-out
    /// everywhere).
    private func remove(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        var revoked: [String] = []
        if case .array(let handles)? = body["sessionHandles"] {
            for case .string(let handle) in handles
            where try await tokens.sessions.signOut(handle: handle, request: request, via: SuperTokensCore.via) {
                revoked.append(handle)
            }
        } else {
            let userID = try SuperTokensCore.text(body, "userId")
            revoked = try await tokens.sessions.signOutEverywhere(UserID(userID), request: request, via: SuperTokensCore.via)
        }
        return SuperTokensCore.status("OK", ["sessionHandlesRevoked": .array(revoked.map(JSONValue.string))])
    }

    /// The same session's access token with new app claims (the SDK's claims change, e.g. `st-ev`
    /// after verification). It keeps the old token's expiry.
    private func regenerate(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let token = try SuperTokensCore.text(body, "accessToken")
        let userData = try Self.object(body, "userDataInJWT")
        guard let claims = tokens.claims(of: token), let handle = claims["sessionHandle"]?.stringValue,
            let userID = claims["sub"]?.stringValue, case .number(let exp)? = claims["exp"],
            await tokens.sessions.current(handle: handle) != nil
        else { return SuperTokensCore.status("UNAUTHORISED", ["message": "Session has ended or has been revoked"]) }
        var updated = claims.filter { SuperTokensTokens.protectedClaims.contains($0.key) }
        updated.merge(userData.filter { !SuperTokensTokens.protectedClaims.contains($0.key) }) { own, _ in own }
        try await tokens.sessions.setData(handle: handle, inJWT: userData)
        // The same session, refresh hash and expiry: only the app's claims change.
        let reissued = try tokens.sign(updated, dynamic: tokens.isDynamic(token), expiry: Date(timeIntervalSince1970: exp))
        return SuperTokensCore.status(
            "OK",
            [
                "session": .object([
                    "handle": .string(handle), "userId": .string(userID), "recipeUserId": .string(userID),
                    "userDataInJWT": .object(userData), "tenantId": "public"
                ]),
                "accessToken": .object([
                    "token": .string(reissued.token), "expiry": .number(Double(reissued.expiry)),
                    "createdTime": .number(Double(reissued.createdTime))
                ])
            ])
    }

    private static func tryRefresh(_ message: String) -> Response {
        SuperTokensCore.status("TRY_REFRESH_TOKEN", ["message": .string(message)])
    }

    /// An optional object field (`{}` when absent); the core's 400 for another type.
    static func object(_ body: [String: JSONValue], _ key: String) throws -> [String: JSONValue] {
        switch body[key] {
        case nil, .null?: return [:]
        case .object(let value)?: return value
        default: throw CoreAnswer(400, "Field name '\(key)' is invalid in JSON input")
        }
    }
}
