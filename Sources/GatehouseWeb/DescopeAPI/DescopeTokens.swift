import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth

/// Descope's two JWTs, ES256 with a `kid` published at `GET /v2/keys/{projectId}` (the Python SDK
/// checks every one there): a short session JWT (`drn: "DS"`) for the app's own checks, and a
/// refresh JWT (`drn: "DSR"`) that is the app's hold on a Gatehouse session — its `sid` is the
/// token of a `SessionBindings` row (`AppSessionKind.descopeAPI`), so the session lists, revokes and
/// audits like a browser's and dies with sign-out everywhere, a password change or a disable.
/// Both carry Descope's claims: `sub`, `iss` (the project id), `iat`, `exp`, `amr`, and empty
/// `roles`, `permissions` and `tenants` (Gatehouse has none).
///
/// The refresh JWT is not rotated: `refresh` answers a new session JWT and no refresh JWT, as
/// Descope does for a project without rotation. Descope's SDKs would take a new one, but the Python
/// SDK's Flask helper keeps only the new session JWT, so a rotated refresh JWT would sign its apps
/// out at their next refresh.
struct DescopeTokens: Sendable {
    let env: PageEnvironment
    let signer: ES256Signer
    let sessionLifetime: TimeInterval
    let refreshLifetime: TimeInterval
    /// Refresh JWTs whose signature held, by their exact text, with their claims read (checking a
    /// P-256 signature was most of a signed-in call's work). A pure function of the text: every
    /// call still checks the expiry, the project and the session row.
    private let verified = BoundedMemo<String, RefreshClaims>(capacity: 4096)

    /// What a refresh JWT (`drn: "DSR"`) this server signed says.
    private struct RefreshClaims: Sendable {
        var project: String
        var user: String
        var sid: String
        var expiresAt: Int
        var amr: [String]

        init?(_ claims: [String: JSONValue]?) {
            guard let claims, claims["drn"]?.stringValue == "DSR", let project = claims["iss"]?.stringValue,
                let user = claims["sub"]?.stringValue, let sid = claims["sid"]?.stringValue,
                case .number(let exp)? = claims["exp"]
            else { return nil }
            var amr: [String] = []
            if case .array(let values)? = claims["amr"] { amr = values.compactMap(\.stringValue) }
            (self.project, self.user, self.sid, self.expiresAt, self.amr) = (project, user, sid, Int(exp), amr)
        }
    }

    var sessions: AppSessions { AppSessions(env: env.accounts, kind: .descopeAPI) }

    /// A session JWT and the refresh JWT bound to a new session row for `session`.
    struct Issued {
        var sessionJwt: String
        var refreshJwt: String
        var refreshExpiresAt: Int
    }

    /// The pair for a new session row holding `session`, signed for `project`; `amr` says how the
    /// person signed in (`pwd`, `email`, `otp`, `totp`, `oauth`).
    func issue(for session: AuthSession, project: String, amr: [String], request: Request) async throws -> Issued {
        let sid = try await sessions.open(session, request: request, lifetime: refreshLifetime)
        let now = Int(env.accounts.clocks.now(for: session.user.id).timeIntervalSince1970)
        let expires = now + Int(refreshLifetime)
        let claims = Self.claims(
            drn: "DSR", user: session.user.id.rawValue, project: project, amr: amr, now: now, expires: expires, sid: sid)
        return Issued(
            sessionJwt: try sessionJwt(user: session.user.id.rawValue, project: project, amr: amr, refreshExpiresAt: expires),
            refreshJwt: try signer.sign(payload: claims), refreshExpiresAt: expires)
    }

    /// A new session JWT for the holder of a live refresh JWT; never outlives the refresh JWT.
    func sessionJwt(user: String, project: String, amr: [String], refreshExpiresAt: Int) throws -> String {
        let now = Int(env.accounts.clocks.now(forAccount: user).timeIntervalSince1970)
        return try signer.sign(
            payload: Self.claims(
                drn: "DS", user: user, project: project, amr: amr, now: now,
                expires: min(now + Int(sessionLifetime), refreshExpiresAt)))
    }

    /// A refresh JWT checked: this server's signature, `project` as its issuer, not expired, a
    /// refresh JWT (not a session JWT) — and its session row still live.
    struct Holder {
        var signedIn: SignedIn
        var amr: [String]
        var expiresAt: Int
    }

    /// The live session behind `refreshJwt`; nil for anything else (another project's token, a
    /// session JWT, an expired, tampered or revoked one).
    func holder(of refreshJwt: String, project: String) async -> Holder? {
        guard let claims = verified.value(for: refreshJwt, make: { RefreshClaims(signer.claims(of: refreshJwt)) }),
            claims.project == project,
            claims.expiresAt > Int(env.accounts.clocks.now(forAccount: claims.user).timeIntervalSince1970),
            let signedIn = await sessions.current(token: claims.sid), signedIn.user.id.rawValue == claims.user
        else { return nil }
        return Holder(signedIn: signedIn, amr: claims.amr, expiresAt: claims.expiresAt)
    }

    /// A state this server signs for `project` and ten minutes, carried from a two-call ceremony's
    /// first call to its second (`oauth/native/start` → `finish`, `webauthn/update/start` →
    /// `finish`), so the server keeps nothing between them; `kind` (its `drn`) names the ceremony.
    func state(_ kind: String, _ fields: [String: JSONValue], project: String) throws -> String {
        let now = Int(env.clock().timeIntervalSince1970)
        return try signer.sign(
            fields.merging([
                "drn": .string(kind), "iss": .string(project), "iat": .number(Double(now)), "exp": .number(Double(now + 600))
            ]) { _, fixed in fixed })
    }

    /// The fields of a live state of `kind` signed for `project`; nil for anything else.
    func state(_ kind: String, _ text: String, project: String) -> [String: JSONValue]? {
        guard let claims = signer.claims(of: text), claims["drn"]?.stringValue == kind,
            claims["iss"]?.stringValue == project, case .number(let exp)? = claims["exp"],
            Int(exp) > Int(env.clock().timeIntervalSince1970)
        else { return nil }
        return claims
    }

    /// The public key that checks every JWT above.
    var keys: JSONWebKeySet { signer.jwks }

    /// A session (`drn` "DS") or refresh ("DSR", with the session row's `sid`) JWT's claims as JSON,
    /// written field by field in key order (a refresh signs one per call).
    private static func claims(
        drn: String, user: String, project: String, amr: [String], now: Int, expires: Int, sid: String? = nil
    ) -> [UInt8] {
        var claims = JSONObjectWriter()
        claims.field("amr", .array(amr.map(JSONValue.string)))
        claims.field("drn", .string(drn))
        claims.field("exp", .number(Double(expires)))
        claims.field("iat", .number(Double(now)))
        claims.field("iss", .string(project))
        claims.field("permissions", .array([]))
        claims.field("roles", .array([]))
        if let sid { claims.field("sid", .string(sid)) }
        claims.field("sub", .string(user))
        claims.field("tenants", .object([:]))
        return claims.finished()
    }
}
