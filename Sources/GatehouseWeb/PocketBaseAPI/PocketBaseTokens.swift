import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// Who a PocketBase-API request acts as.
enum PocketBaseCaller: Sendable {
    case guest
    case user(SignedIn, claims: PocketBaseTokens.Claims)
    case superuser(Staff)
}

/// PocketBase-style auth tokens: HS256 JWTs with PocketBase's claims (`collectionId`, `exp`, `id`,
/// `refreshable`, `type: "auth"`), so SDKs read expiry and ids as they do from PocketBase. Each also
/// carries `sid`, the token of a Gatehouse session row: a user's is a `SessionBindings` row bound to
/// the backend's session (so it lists, revokes and audits like a browser session, and dies with the
/// backend session — a password or email change, a disable), a superuser's is a console session.
struct PocketBaseTokens: Sendable {
    struct Claims: Sendable {
        var collectionId: String
        var exp: Int
        var id: String
        var refreshable: Bool
        var type: String
        var sid: String
    }

    let env: PageEnvironment
    let signer: HS256Token

    private var sessions: AppSessions { AppSessions(env: env.accounts, kind: .pocketBaseAPI) }

    /// A token for the backend session `session`, on a new session row described by `request`.
    func issue(
        for session: AuthSession, request: Request, impersonator: String? = nil, lifetime: Int? = nil
    ) async throws -> String {
        let lifetime = lifetime ?? PocketBaseCollection.users.tokenLifetime
        let sid = try await sessions.open(
            session, request: request, impersonator: impersonator, lifetime: TimeInterval(lifetime))
        return sign(
            Claims(
                collectionId: PocketBaseCollection.users.id, exp: expiry(lifetime, for: session.user.id.rawValue),
                id: session.user.id.rawValue,
                refreshable: session.refreshable, type: "auth", sid: sid))
    }

    /// A superuser token over the console session `session` (its id and end).
    func token(for superuser: StaffMember, on session: (token: String, expiresAt: Date)) -> String {
        let (sid, expiresAt) = session
        let exp = min(expiry(PocketBaseCollection.superusers.tokenLifetime), Int(expiresAt.timeIntervalSince1970))
        return sign(
            Claims(
                collectionId: PocketBaseCollection.superusers.id, exp: exp, id: superuser.id, refreshable: true,
                type: "auth", sid: sid))
    }

    /// The same superuser session with a later `exp` (`auth-refresh`), never past the session's
    /// end: a refresh opens no session, so a token kept refreshing ends with its sign-in (and is no
    /// recent one). Nil for a token that is not a superuser token.
    func renewed(_ staff: Staff, token: String) -> String? {
        guard let payload = signer.verify(token), let claims = Claims(json: payload) else { return nil }
        return self.token(for: staff.superuser, on: (claims.sid, staff.session.expiresAt))
    }

    /// The same user session with a later `exp` (`auth-refresh`); the earlier token keeps working
    /// until its own `exp`, as PocketBase's do. Non-refreshable tokens come back unchanged.
    func renewed(_ claims: Claims, signedIn: SignedIn, token: String) async throws -> String {
        guard claims.refreshable else { return token }
        let lifetime = PocketBaseCollection.users.tokenLifetime
        // The row lives as long as the newest token; rewritten at most hourly (a token may then end
        // up to an hour before its `exp`), not on every refresh.
        let until = env.accounts.clocks.now(forAccount: claims.id).addingTimeInterval(TimeInterval(lifetime))
        if until.timeIntervalSince(signedIn.session.expiresAt) > 3600 {
            try await sessions.extend(signedIn, until: until)
        }
        var renewed = claims
        renewed.exp = expiry(lifetime, for: claims.id)
        return sign(renewed)
    }

    /// The caller behind `Authorization` (raw, as PocketBase SDKs send it, or `Bearer`). A missing,
    /// empty, malformed, expired or revoked token is a guest, as PocketBase treats it.
    func caller(_ request: Request) async -> PocketBaseCaller {
        await caller(token: request.bareOrBearerToken)
    }

    /// The caller behind a token as `caller(_:)` reads it from a request; realtime checks a
    /// subscriber's token again before each delivery, so a revoked one stops its events.
    func caller(token: String?) async -> PocketBaseCaller {
        guard let token, let payload = signer.verify(token),
            let claims = Claims(json: payload), claims.type == "auth"
        else { return .guest }
        switch PocketBaseCollection(idOrName: claims.collectionId) {
        case .users:
            guard claims.exp > Int(env.accounts.clocks.now(forAccount: claims.id).timeIntervalSince1970),
                let signedIn = await sessions.current(token: claims.sid),
                signedIn.user.id.rawValue == claims.id
            else { return .guest }
            return .user(signedIn, claims: claims)
        case .superusers:
            guard claims.exp > Int(env.clock().timeIntervalSince1970),
                let staff = await env.console.lookUp(token: claims.sid, at: .pocketBaseAPI), staff.superuser.id == claims.id
            else { return .guest }
            return .superuser(staff)
        default:
            return .guest
        }
    }

    private func sign(_ claims: Claims) -> String {
        signer.sign(payload: Data(claims.json.serialized))
    }

    /// The `exp` of a token living `lifetime` from now in the time of the account `id` (a
    /// superuser's is the server's: no account clock names it).
    private func expiry(_ lifetime: Int, for id: String? = nil) -> Int {
        Int((id.map(env.accounts.clocks.now(forAccount:)) ?? env.clock()).timeIntervalSince1970) + lifetime
    }
}

extension PocketBaseTokens.Claims {
    /// The claims as `JSONEncoder` with sorted keys writes them, built directly (every
    /// `auth-refresh` signs a token).
    var json: JSONValue {
        .object([
            "collectionId": .string(collectionId), "exp": .number(Double(exp)), "id": .string(id),
            "refreshable": .bool(refreshable), "type": .string(type), "sid": .string(sid)
        ])
    }

    /// The claims of a verified payload, read directly (every authenticated call reads them); nil
    /// when a claim is missing or of the wrong type, as `JSONDecoder` would refuse it.
    init?(json payload: Data) {
        guard case .object(let fields)? = JSONValue(parsing: String(decoding: payload, as: UTF8.self)),
            case .string(let collectionId)? = fields["collectionId"], case .number(let exp)? = fields["exp"],
            let whole = Int(exactly: exp), case .string(let id)? = fields["id"],
            case .bool(let refreshable)? = fields["refreshable"], case .string(let type)? = fields["type"],
            case .string(let sid)? = fields["sid"]
        else { return nil }
        self.init(collectionId: collectionId, exp: whole, id: id, refreshable: refreshable, type: type, sid: sid)
    }
}
