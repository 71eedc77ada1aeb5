import Accounts
import AuthCore
import Foundation
import HTTPServer
import TwoFactor

/// The multifactorauth and totp recipes' FDI routes over Gatehouse's authenticator app, one per
/// account (its one "device", named as the core's TOTP routes name it): `mfa/info`; the device
/// set up, confirmed and removed through `AuthenticatorApp` as the pages do (the same pending key,
/// window, code-check budget and trust rule; removal on a recent session's word, the FDI's
/// `WayInPolicy`); and `totp/verify`, which completes the second step a first factor left owed
/// (`SecondStepSignIn`, five minutes and five tries as on the pages) and opens the session, or in
/// a session that owes nothing checks the code as a step-up (`AuthenticatorApp.stepUp`).
struct FDIMultiFactorRoutes: Sendable {
    let fdi: SuperTokensFDI
    private var accounts: Accounts { fdi.env.accounts }
    private var devices: AppAuthenticatorDevices { AppAuthenticatorDevices(env: accounts) }

    func register(on router: inout Router) {
        fdi.on(&router, .put, "/mfa/info", info)
        fdi.on(&router, .get, "/totp/device/list") { request in
            let device = try await devices.device(of: try await account(of: request).user.id.rawValue)
            return SuperTokensFDI.status("OK", ["devices": .array(device.map { [SuperTokensTOTPRoutes.describe($0)] } ?? [])])
        }
        fdi.on(&router, .post, "/totp/device", create)
        fdi.on(&router, .post, "/totp/device/remove", remove)
        fdi.on(&router, .post, "/totp/device/verify", verifyDevice)
        fdi.on(&router, .post, "/totp/verify", verify)
    }

    /// The account the request's token names, a session's or an owed step's, and whether it owes one.
    private func account(of request: Request) async throws -> (user: User, owesStep: Bool) {
        switch try await fdi.sessions.presented(request) {
        case .session(let session): return (session.user, false)
        case .owing(let owing): return (try await UserDirectory(env: accounts).user(owing.userID), true)
        }
    }

    /// The account's factors: the first factors the server offers (each works for any account with
    /// an address), its authenticator, and what the sign-in still owes. The token stays as it is:
    /// a session's `st-mfa` is met from its start, an owed step's until `totp/verify`.
    private func info(_ request: Request) async throws -> Response {
        let (user, owesStep) = try await account(of: request)
        let authenticator = try await devices.device(of: user.id.rawValue)?.verified == true
        let emailFactors = fdi.firstFactors
        let body = SuperTokensFDI.status(
            "OK",
            [
                "factors": .object([
                    "alreadySetup": .array((emailFactors + (authenticator ? ["totp"] : [])).map(JSONValue.string)),
                    "allowedToSetup": .array(authenticator || !fdi.env.capabilities.contains(.totp) ? [] : ["totp"]),
                    "next": .array(owesStep && authenticator ? ["totp"] : [])
                ]),
                "emails": .object(
                    Dictionary(uniqueKeysWithValues: emailFactors.map { ($0, JSONValue.array([.string(user.email)])) })),
                "phoneNumbers": .object([:])
            ])
        return body
    }

    /// A key for the account's authenticator (the pages' pending key while it is fresh).
    private func create(_ request: Request) async throws -> Response {
        let session = try await fdi.sessions.verified(request)
        let body = try SuperTokensFDI.body(request)
        let userID = session.user.id.rawValue
        if try await devices.device(of: userID)?.verified == true { return SuperTokensFDI.status("DEVICE_ALREADY_EXISTS_ERROR") }
        let name = body["deviceName"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? AppAuthenticatorDevices.defaultName
        let enrollment = try await AuthenticatorApp(env: accounts).beginEnrollment(session.signedIn, policy: .superTokensFrontend)
        try await devices.handedOut(userID, name: name)
        return SuperTokensFDI.status(
            "OK",
            [
                "deviceName": .string(name), "secret": .string(enrollment.secret),
                "qrCodeString": .string(enrollment.provisioningURL)
            ])
    }

    /// The first code of a handed-out key turns the authenticator on, and marks `totp` done in
    /// the session's `st-mfa`; a device already on answers `wasAlreadyVerified` with no code checked.
    private func verifyDevice(_ request: Request) async throws -> Response {
        let session = try await fdi.sessions.verified(request)
        let body = try SuperTokensFDI.body(request)
        let code = try SuperTokensFDI.text(body, "totp")
        let userID = session.user.id.rawValue
        guard let device = try await devices.device(of: userID), device.answers(to: try SuperTokensFDI.text(body, "deviceName"))
        else { return SuperTokensFDI.status("UNKNOWN_DEVICE_ERROR") }
        if device.verified { return SuperTokensFDI.status("OK", ["wasAlreadyVerified": .bool(true)]) }
        do {
            _ = try await AuthenticatorApp(env: accounts).confirmEnrollment(
                code: code, session.signedIn, policy: .superTokensFrontend, request: request)
        } catch AuthError.invalidCode {
            return SuperTokensTOTPRoutes.invalid(failed: try await devices.failed(userID))
        } catch AuthError.codeExpired {
            try await devices.forget(userID)
            return SuperTokensFDI.status("UNKNOWN_DEVICE_ERROR")
        } catch AuthError.rateLimited(let wait) {
            return SuperTokensTOTPRoutes.limitReached(retryAfter: wait)
        }
        try await devices.confirmed(userID)
        return try await totpCompleted(session, body: SuperTokensFDI.status("OK", ["wasAlreadyVerified": .bool(false)]))
    }

    /// `body` with the session's access token re-signed, `totp` completed now in its `st-mfa`.
    private func totpCompleted(_ session: FDISessions.Verified, body: Response) async throws -> Response {
        var session = session
        let done = FDISessions.completed(session.claims)
        session.claims[FDISessions.mfaClaim] = fdi.sessions.mfa(["totp"], carried: done, met: true)
        return try await fdi.sessions.refreshingClaims(session, body: body)
    }

    /// Turns the authenticator off, in a recent sign-in (the FDI asks for no password).
    private func remove(_ request: Request) async throws -> Response {
        let session = try await fdi.sessions.verified(request)
        let userID = session.user.id.rawValue
        let name = try SuperTokensFDI.text(try SuperTokensFDI.body(request), "deviceName")
        guard let device = try await devices.device(of: userID), device.answers(to: name) else {
            return SuperTokensFDI.status("OK", ["didDeviceExist": .bool(false)])
        }
        do {
            if device.verified {
                try await AuthenticatorApp(env: accounts).remove(
                    session.signedIn, policy: .superTokensFrontend, via: SuperTokensFDI.via, request: request)
            }
        } catch let refusal as FreshSignInRequired {
            return SuperTokensFDI.status("GENERAL_ERROR", ["message": .string(refusal.message)])
        }
        try await devices.forget(userID)
        // The SDK fetches the MFA claim again once a factor goes: the access token is re-signed.
        return try await fdi.sessions.refreshingClaims(
            session, body: SuperTokensFDI.status("OK", ["didDeviceExist": .bool(true)]))
    }

    /// A code for the second step a first factor left owed: right, and the session opens with
    /// both factors in its `st-mfa`; wrong, counted as on the pages. In a session that owes
    /// nothing, a step-up (`stepUp`).
    private func verify(_ request: Request) async throws -> Response {
        let code = try SuperTokensFDI.text(try SuperTokensFDI.body(request), "totp")
        let owing: FDISessions.Owing
        switch try await fdi.sessions.presented(request) {
        case .session(let session): return try await stepUp(code, session, request)
        case .owing(let owed): owing = owed
        }
        let user = try await UserDirectory(env: accounts).user(owing.userID)
        switch try await SecondStepSignIn(env: accounts, via: SuperTokensFDI.via).attempt(
            email: user.email, factor: .totp(code: code), request: request)
        {
        case .signedIn(let session):
            try await devices.resetFailures(user.id.rawValue)
            return try await fdi.sessions.opening(
                session, factors: ["totp"], carried: FDISessions.completed(owing.claims), request: request,
                body: SuperTokensFDI.status("OK"))
        case .refused(.throttled(let wait)):
            return SuperTokensTOTPRoutes.limitReached(retryAfter: wait)
        case .refused(.expired):
            return SuperTokensTOTPRoutes.invalid(failed: TOTPRules.triesPerStep)
        case .refused, .secondStep:
            return SuperTokensTOTPRoutes.invalid(failed: try await devices.failed(user.id.rawValue))
        }
    }

    /// A code checked in a session that owes nothing, as SuperTokens' core checks it against the
    /// account's device (`AuthenticatorApp.stepUp`): right, and `totp` is completed anew in the
    /// session's `st-mfa`; no authenticator is `UNKNOWN_USER_ID_ERROR`, as the core answers.
    private func stepUp(_ code: String, _ session: FDISessions.Verified, _ request: Request) async throws -> Response {
        let userID = session.user.id.rawValue
        switch try await AuthenticatorApp(env: accounts).stepUp(
            code: code, session.signedIn, via: SuperTokensFDI.via, request: request)
        {
        case .passed:
            try await devices.resetFailures(userID)
            return try await totpCompleted(session, body: SuperTokensFDI.status("OK"))
        case .wrongCode: return SuperTokensTOTPRoutes.invalid(failed: try await devices.failed(userID))
        case .noAuthenticator: return SuperTokensFDI.status("UNKNOWN_USER_ID_ERROR")
        case .throttled(let wait): return SuperTokensTOTPRoutes.limitReached(retryAfter: wait)
        }
    }
}
