import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The signed-in calls that carry the refresh JWT in `Authorization: Bearer <projectId>:<refreshJwt>`:
/// `refresh`, `me`, `me/tenants`, `tenant/select`, `me/history`, `logout`, `logoutall`.
struct DescopeSessionRoutes: Sendable {
    let api: DescopeAPI

    func register(on router: inout Router) {
        api.on(&router, .post, "/v1/auth/refresh") { call in
            // A new session JWT; the refresh JWT is not rotated, so it is not answered (`jwtResponse`).
            let holder = try await api.holder(call)
            let user = holder.signedIn.user
            return try api.jwtResponse(
                session: try api.tokens.sessionJwt(
                    user: user.id.rawValue, project: call.project, amr: holder.amr, refreshExpiresAt: holder.expiresAt),
                refresh: nil, expiresAt: holder.expiresAt,
                user: DescopeUser(user, amr: holder.amr),
                firstSeen: false)
        }
        api.on(&router, .get, "/v1/auth/me") { call in
            let holder = try await api.holder(call)
            return .json(raw: try await user(of: holder.signedIn, amr: holder.amr).serialized)
        }
        api.on(&router, .post, "/v1/auth/me/tenants") { call in
            _ = try await api.holder(call)
            return try .json(["tenants": [String]()])
        }
        api.on(&router, .post, "/v1/auth/tenant/select") { call in
            // Gatehouse has no tenants, so no user is in the one named: Descope's refusal for that.
            _ = try await api.holder(call)
            let tenant = try call.required("tenant")
            throw DescopeAnswer(
                400, DescopeCode.invalidArguments, "Invalid arguments", "The user is not a member of tenant \(tenant)")
        }
        api.on(&router, .get, "/v1/auth/me/history") { call in
            // The account's live sessions, newest first: where and when each sign-in began.
            let signedIn = try await api.holder(call).signedIn
            let sessions = try await OwnSessions(env: api.env.accounts).live(of: signedIn)
            return try .json(
                sessions.sorted { $0.createdAt > $1.createdAt }.map {
                    LoginHistoryEntry(
                        userId: signedIn.user.id.rawValue, loginTime: Int($0.createdAt.timeIntervalSince1970), ip: $0.ip ?? "")
                })
        }
        api.on(&router, .post, "/v1/auth/logout") { call in
            try await OwnSessions(env: api.env.accounts, via: DescopeAPI.via).signOutOfThis(
                try await api.holder(call).signedIn, request: call.request)
            return try signedOut()
        }
        api.on(&router, .post, "/v1/auth/logoutall") { call in
            _ = try await OwnSessions(env: api.env.accounts, via: DescopeAPI.via).signOutEverywhere(
                try await api.holder(call).signedIn, request: call.request)
            return try signedOut()
        }
    }

    /// An empty answer that deletes the token cookies where the project keeps tokens in them.
    private func signedOut() throws -> Response {
        var response = try Response.json([String: String]())
        if api.env.configuration.descopeTokenCookies { api.cookies.clear(on: &response) }
        return response
    }

    /// The account as `me` answers it, with its authenticator app and linked providers (two short
    /// reads, one after the other: child tasks would cost more than the reads). Whether it has a
    /// password or passkeys is said from the session's `amr`, as on `refresh`: reading them too
    /// cost ~10 % of `me` in `make bench`, whose goal for it (0.8 of PocketBase's auth-refresh)
    /// has little room.
    private func user(of signedIn: SignedIn, amr: [String]) async throws -> DescopeUser {
        let totp = try? await AuthenticatorApp(env: api.env.accounts).status(of: signedIn).enabled
        let links = try? await ProviderLinks(env: api.env.accounts, via: DescopeAPI.via).own(signedIn)
        return DescopeUser(signedIn.user, amr: amr, totp: totp ?? false, providers: (links ?? []).map(\.provider))
    }
}

/// One row of `me/history` (Gatehouse does not place addresses: no city or country).
private struct LoginHistoryEntry: Encodable {
    var userId: String
    var loginTime: Int
    var city = ""
    var country = ""
    var ip: String
}
