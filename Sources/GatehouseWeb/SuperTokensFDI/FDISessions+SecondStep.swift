import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The FDI's sign-ins that owe a second step (SuperTokens' MFA recipe): the first factor answers
/// as the SDK expects — `OK` and an access token whose `st-mfa` claim is unmet — but that token
/// is no session: no session handle, no refresh token, no row, and it lives only as long as the
/// step (`SecondStepSignIn.pendingLifetime`). The step itself is kept by `SecondStepSignIn` for the
/// account, as the core's second steps are; `totp/verify` completes it and opens the session.
/// Every route but `mfa/info`, the TOTP routes and `signout` answers such a token with the SDK's
/// 403 `invalid claim`.
extension FDISessions {
    /// The `st-mfa` claim: `{c: {factor id: completed at (s)}, v: whether the sign-in is complete}`.
    static let mfaClaim = "st-mfa"

    /// A presented access token: a session's, or a first factor's whose second step is owed.
    enum Presented: Sendable {
        case session(Verified)
        case owing(Owing)
    }

    /// A first factor's token: whose account, and what it carries.
    struct Owing: Sendable {
        var claims: [String: JSONValue]
        var userID: UserID
        var transport: FDITransport
    }

    /// The access token the request carries, checked (see `verified`).
    func presented(_ request: Request) async throws -> Presented {
        guard let (token, transport) = FDITransport.presented(request, refresh: false) else { throw FDIRefusal.noSession }
        guard let claims = tokens.claims(of: token), case .number(let exp)? = claims["exp"],
            exp > tokens.now(of: claims).timeIntervalSince1970
        else { throw FDIRefusal.tryRefresh }
        if transport == .cookie, request.method != .get, request.headers["rid"] == nil {
            // The tokens are kept (the SDK clears them): a forged post must not sign the person out.
            throw FDIRefusal(
                status: 401, message: "anti-csrf check failed. Please pass 'rid: \"session\"' header in the request.")
        }
        let owes = claims[Self.mfaClaim].flatMap { if case .object(let mfa) = $0 { mfa["v"] } else { nil } } == .bool(false)
        guard let handle = claims["sessionHandle"]?.stringValue else {
            guard owes, let user = claims["sub"]?.stringValue else { throw FDIRefusal.tryRefresh }
            return .owing(Owing(claims: claims, userID: UserID(user), transport: transport))
        }
        // A session an app's backend opened through the core before its MFA recipe's step.
        if owes { throw FDIRefusal.secondStepOwed }
        guard let signedIn = await tokens.sessions.current(handle: handle) else { throw FDIRefusal.unauthorised }
        return .session(Verified(claims: claims, token: token, signedIn: signedIn, transport: transport))
    }

    /// The `body` for the account of a first factor (`factor`, SuperTokens' id) whose account owes
    /// its second step: the step kept for the account, and a token naming it with `st-mfa` unmet.
    /// `unauthorised` when the backend cannot name the account.
    func owing(
        _ challenge: MFAChallenge, factor: String, request: Request, body: (User) -> Response
    ) async throws -> Response {
        let steps = SecondStepSignIn(env: fdi.env.accounts, via: SuperTokensFDI.via)
        guard let user = try await steps.rememberForItsAccount(challenge) else { throw FDIRefusal.unauthorised }
        // A new sign-in's step: its wrong codes are counted afresh, as the core's are.
        try await AppAuthenticatorDevices(env: fdi.env.accounts).resetFailures(user.id.rawValue)
        let now = fdi.env.accounts.clocks.now(forAccount: user.id.rawValue)
        let stepEnds = challenge.expiresAt ?? now.addingTimeInterval(SecondStepSignIn.pendingLifetime)
        var claims = try await claims(for: user)
        claims["sub"] = .string(user.id.rawValue)
        claims["tId"] = "public"
        claims[Self.mfaClaim] = mfa([factor], met: false)
        let signed = try tokens.sign(claims, dynamic: true, expiry: min(stepEnds, now.addingTimeInterval(tokens.accessLifetime)))
        return try answer(
            body(user), signed.token, refreshToken: nil, userID: user.id.rawValue,
            transport: FDITransport(forNewSessionOf: request))
    }

    /// An `st-mfa` value: the factors `carried` from the first step with their times, `factors`
    /// completed now, and whether the sign-in is complete.
    func mfa(_ factors: [String], carried: [String: JSONValue] = [:], met: Bool) -> JSONValue {
        let now = JSONValue.number(fdi.env.clock().timeIntervalSince1970.rounded(.down))
        var completed = carried
        for factor in factors { completed[factor] = now }
        return .object(["c": .object(completed), "v": .bool(met)])
    }

    /// The factors a token's `st-mfa` says were completed, with their times.
    static func completed(_ claims: [String: JSONValue]) -> [String: JSONValue] {
        guard case .object(let mfa)? = claims[mfaClaim], case .object(let done)? = mfa["c"] else { return [:] }
        return done
    }
}
