import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// The FDI's sessions: opened for a sign-in an owner admitted, checked on every call that needs
/// one (signature, expiry, and the row itself, so a revoked session stops at once), refreshed
/// by rotation and ended by sign-out — `AppSessions` rows named by their handle, the same sessions
/// the core API hands out. The access token carries `iss` and the `st-ev` claim (whether the
/// address is proven), fresh at every token minted, and `st-mfa` (the factors the sign-in took;
/// a sign-in that owes its second step: `FDISessions+SecondStep`).
struct FDISessions: Sendable {
    let fdi: SuperTokensFDI
    var tokens: SuperTokensTokens { fdi.tokens }

    /// A checked access token: its claims, its session and how it came.
    struct Verified: Sendable {
        var claims: [String: JSONValue]
        var token: String
        var signedIn: SignedIn
        var transport: FDITransport
        var user: User { signedIn.user }
    }

    /// `body` with a new session for `session` (a sign-in or sign-up the owner admitted), in the
    /// transport the frontend asked for; its `st-mfa` claim names the `factors` the sign-in took
    /// (SuperTokens' factor ids) and is met: Gatehouse hands out no session while a step is owed.
    func opening(
        _ session: AuthSession, factors: [String] = [], carried: [String: JSONValue] = [:], request: Request, body: Response
    ) async throws -> Response {
        let opened = try await tokens.sessions.openNamed(session, request: request, lifetime: tokens.accessLifetime)
        var userData = try await claims(for: opened.user)
        userData[Self.mfaClaim] = mfa(factors, carried: carried, met: true)
        let minted = try tokens.mint(opened, userData: userData, antiCsrf: nil, dynamic: true)
        return try answer(
            body, minted.accessToken, refreshToken: minted.refreshToken, userID: minted.userID,
            transport: FDITransport(forNewSessionOf: request))
    }

    /// The session the request's access token names: `tryRefresh` for an expired or unreadable
    /// token, `unauthorised` for none or an ended session, the SDK's 403 for a sign-in whose second
    /// step is still owed (`presented` lets the routes that serve one see it).
    func verified(_ request: Request) async throws -> Verified {
        switch try await presented(request) {
        case .session(let session): return session
        case .owing: throw FDIRefusal.secondStepOwed
        }
    }

    /// The session the request names, if any: nil without an access token; its refusals otherwise.
    func optional(_ request: Request) async throws -> Verified? {
        FDITransport.presented(request, refresh: false) == nil ? nil : try await verified(request)
    }

    /// The request's session when its account is a guest: a sign-up, code or link spent with it
    /// upgrades the guest (as the Rownd plugin links the new login method to the guest's user). A
    /// token that does not verify is no guest's, and the sign-in goes on without it.
    func guest(_ request: Request) async throws -> Verified? {
        guard let session = try? await optional(request) else { return nil }
        return try await fdi.isGuest(session.user) ? session : nil
    }

    /// `body` with the session's access token re-signed with today's `st-ev` (same session, same
    /// expiry), as the SDK does when a claim is fetched again.
    func refreshingClaims(_ session: Verified, body: Response) async throws -> Response {
        var claims = session.claims
        claims.merge(try await self.claims(for: session.user)) { _, fresh in fresh }
        // The refresh it came from has been used: the core drops the parent's hash at its first use.
        claims["parentRefreshTokenHash1"] = nil
        guard case .number(let exp)? = claims["exp"] else { throw FDIRefusal.tryRefresh }
        let expiry = Date(timeIntervalSince1970: exp)
        let reissued = try tokens.sign(claims, dynamic: tokens.isDynamic(session.token), expiry: expiry)
        return try answer(body, reissued.token, refreshToken: nil, userID: session.user.id.rawValue, transport: session.transport)
    }

    /// `session/refresh`: a new pair for the request's refresh token, in the transport it came in.
    func refresh(_ request: Request) async throws -> Response {
        guard let (presented, transport) = FDITransport.presented(request, refresh: true) else {
            throw FDIRefusal.unauthorised
        }
        switch try await tokens.rotate(
            presented, antiCsrf: nil, dynamic: true,
            userData: { signedIn, kept in
                // Only a guest's session can say `guest`, and no session becomes a guest's: the
                // store is asked only then (a refresh is otherwise no read more).
                let guest = kept["auth_level"] == "guest" ? try await fdi.isGuest(signedIn.user) : false
                return kept.merging(claims(for: signedIn.user, guest: guest)) { _, fresh in fresh }
            })
        {
        case .minted(let minted):
            return try answer(
                .json(raw: "{}"), minted.accessToken, refreshToken: minted.refreshToken,
                userID: minted.userID, transport: transport)
        case .theft: throw FDIRefusal.tokenTheft
        case .refused: throw FDIRefusal.unauthorised
        }
    }

    /// `signout`: the request's session ends, and the frontend's tokens are cleared.
    /// A sign-in still owing its second step holds no session: only its token is cleared.
    func signOut(_ request: Request) async throws -> Response {
        let transport: FDITransport
        switch try await presented(request) {
        case .session(let session):
            try await tokens.sessions.signOut(session.signedIn, request: request, via: SuperTokensFDI.via)
            transport = session.transport
        case .owing(let owing):
            transport = owing.transport
        }
        var response = SuperTokensFDI.status("OK")
        FDITransport.clear(transport, refreshPath: fdi.refreshPath, secure: fdi.secureCookies, in: &response)
        return response
    }

    /// The claims the FDI adds to an access token: its issuer, `st-ev` for `user`, and the Rownd plugin's.
    func claims(for user: User) async throws -> [String: JSONValue] {
        claims(for: user, guest: try await fdi.isGuest(user))
    }

    /// The same, knowing whether `user` is a guest.
    func claims(for user: User, guest: Bool) -> [String: JSONValue] {
        let now = (fdi.env.clock().timeIntervalSince1970 * 1000).rounded(.down)
        return RowndUser.claims(for: user, guest: guest, now: now).merging([
            "iss": .string(fdi.issuer), "st-ev": .object(["v": .bool(user.emailVerified), "t": .number(now)])
        ]) { _, own in own }
    }

    /// `body` carrying `access` (and `refreshToken`) in `transport`, with the `front-token`:
    /// base64 of `{uid, ate, up}` (the payload), keys sorted as supertokens-python writes it.
    func answer(
        _ body: Response, _ access: String, refreshToken: String?, userID: String, transport: FDITransport
    ) throws -> Response {
        guard let payload = tokens.claims(of: access), case .number(let exp)? = payload["exp"] else {
            throw FDIRefusal.tryRefresh
        }
        let front = JSONValue.object(["uid": .string(userID), "ate": .number(exp * 1000), "up": .object(payload)])
        var response = body
        transport.write(
            access: access, refreshToken: refreshToken, frontToken: Data(front.serialized).base64EncodedString(),
            refreshPath: fdi.refreshPath, secure: fdi.secureCookies, into: &response)
        return response
    }
}
