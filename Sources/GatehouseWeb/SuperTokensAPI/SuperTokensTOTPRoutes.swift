import Accounts
import AuthCore
import Foundation
import HTTPServer
import TwoFactor

/// The core's TOTP recipe over Gatehouse's authenticator app, which is one per account: the
/// account's authenticator is its one "device" (a second named device is refused with
/// `DEVICE_ALREADY_EXISTS_ERROR`). Enrolment is `AuthenticatorApp`'s — the same pending key,
/// window and code-check budget as the pages — and `totp/verify` completes the second step of
/// the account's latest sign-in (`SecondStepSignIn`), which the core's `signin` and passwordless
/// `consume` left waiting for it: the SDK's MFA recipe asks for it after the first factor.
struct SuperTokensTOTPRoutes: Sendable {
    let core: SuperTokensCore
    private var accounts: Accounts { core.env.accounts }
    private var authenticators: AppAuthenticatorDevices { core.authenticators }

    func register(on router: inout Router) {
        core.on(&router, .post, "/recipe/totp/device", createDevice)
        core.on(&router, .put, "/recipe/totp/device", renameDevice)
        core.on(&router, .get, "/recipe/totp/device/list") { request, _ in
            let userID = try SuperTokensCore.query(request, "userId")
            guard let device = try await authenticators.device(of: userID) else {
                return SuperTokensCore.status("OK", ["devices": .array([])])
            }
            return SuperTokensCore.status("OK", ["devices": .array([Self.describe(device)])])
        }
        core.on(&router, .post, "/recipe/totp/device/remove", removeDevice)
        core.on(&router, .post, "/recipe/totp/device/verify", tenantScoped: true, verifyDevice)
        core.on(&router, .post, "/recipe/totp/verify", tenantScoped: true, verifyCode)
    }

    /// The `userId` field, and the account's device when it answers to the name in `nameField`.
    private func device(_ body: [String: JSONValue], named nameField: String) async throws -> (
        String, AppAuthenticatorDevices.Device?
    ) {
        let userID = try Self.nonEmpty(body, "userId")
        let name = try Self.nonEmpty(body, nameField)
        return (userID, try await authenticators.device(of: userID).flatMap { $0.answers(to: name) ? $0 : nil })
    }

    static func describe(_ device: AppAuthenticatorDevices.Device) -> JSONValue {
        .object([
            "name": .string(device.name), "period": .number(Double(TOTP.period)), "skew": .number(1),
            "verified": .bool(device.verified)
        ])
    }

    /// A key for the account's authenticator; Gatehouse's codes are 30-second steps checked ±1.
    private func createDevice(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let userID = try Self.nonEmpty(body, "userId")
        let name = try SuperTokensCore.optionalText(body, "deviceName")
        if name == "" { throw CoreAnswer(400, "deviceName cannot be empty") }
        guard try Self.integer(body, "skew") == 1, try Self.integer(body, "period") == Int(TOTP.period) else {
            throw CoreAnswer(
                400, "Gatehouse's authenticator codes are 30-second steps checked one step either side: send skew 1, period 30")
        }
        if let existing = try await authenticators.device(of: userID), existing.verified {
            return SuperTokensCore.status("DEVICE_ALREADY_EXISTS_ERROR")
        }
        let enrollment: TOTPEnrollment
        do {
            enrollment = try await AuthenticatorApp(env: accounts).beginEnrollment(for: UserID(userID))
        } catch AuthError.userNotFound, AuthError.invalidCredentials {
            throw CoreAnswer(400, "Gatehouse keeps authenticators for its accounts only: no account \(userID)")
        }
        let deviceName = name ?? AppAuthenticatorDevices.defaultName
        try await authenticators.handedOut(userID, name: deviceName)
        return SuperTokensCore.status("OK", ["deviceName": .string(deviceName), "secret": .string(enrollment.secret)])
    }

    private func renameDevice(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let (userID, device) = try await device(body, named: "existingDeviceName")
        let new = try Self.nonEmpty(body, "newDeviceName")
        guard device != nil else { return SuperTokensCore.status("UNKNOWN_DEVICE_ERROR") }
        try await authenticators.renamed(userID, to: new)
        return SuperTokensCore.status("OK")
    }

    private func removeDevice(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let (userID, device) = try await device(body, named: "deviceName")
        guard device != nil else { return SuperTokensCore.status("OK", ["didDeviceExist": .bool(false)]) }
        try await AuthenticatorApp(env: accounts).remove(for: UserID(userID), via: SuperTokensCore.via, request: request)
        try await authenticators.forget(userID)
        return SuperTokensCore.status("OK", ["didDeviceExist": .bool(true)])
    }

    /// The first code of a handed-out key turns the authenticator on; a device already on answers
    /// `wasAlreadyVerified` without a code check, as the core does.
    private func verifyDevice(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let (userID, found) = try await device(body, named: "deviceName")
        let code = try SuperTokensCore.text(body, "totp")
        guard let device = found else { return SuperTokensCore.status("UNKNOWN_DEVICE_ERROR") }
        if device.verified { return SuperTokensCore.status("OK", ["wasAlreadyVerified": .bool(true)]) }
        do {
            try await AuthenticatorApp(env: accounts).confirmEnrollment(
                code: code, for: UserID(userID), via: SuperTokensCore.via, request: request)
        } catch AuthError.invalidCode {
            return Self.invalid(failed: try await authenticators.failed(userID))
        } catch AuthError.codeExpired {
            try await authenticators.forget(userID)
            return SuperTokensCore.status("UNKNOWN_DEVICE_ERROR")
        } catch AuthError.rateLimited(let wait) {
            return Self.limitReached(retryAfter: wait)
        }
        try await authenticators.confirmed(userID)
        return SuperTokensCore.status("OK", ["wasAlreadyVerified": .bool(false)])
    }

    /// A code for the second step of the account's latest sign-in (five minutes, five tries, as on
    /// the pages); outside one — none asked, expired, spent, out of tries — it is refused as a
    /// wrong code with no tries left: the person signs in again.
    private func verifyCode(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let userID = try Self.nonEmpty(body, "userId")
        let code = try SuperTokensCore.text(body, "totp")
        guard let device = try await authenticators.device(of: userID), device.verified,
            let user = try? await UserDirectory(env: accounts).user(UserID(userID))
        else { return SuperTokensCore.status("UNKNOWN_USER_ID_ERROR") }
        switch try await SecondStepSignIn(env: accounts, via: SuperTokensCore.via).attempt(
            email: user.email, factor: .totp(code: code), request: request)
        {
        case .signedIn(let session):
            _ = await core.acts.handOver(session)
            try await authenticators.resetFailures(userID)
            return SuperTokensCore.status("OK")
        case .refused(.throttled(let wait)):
            return Self.limitReached(retryAfter: wait)
        case .refused(.expired):
            return Self.invalid(failed: TOTPRules.triesPerStep)
        case .refused, .secondStep:
            return Self.invalid(failed: try await authenticators.failed(userID))
        }
    }

    /// A wrong code, as both SuperTokens APIs answer it (the count capped at the tries there are).
    static func invalid(failed: Int) -> Response {
        SuperTokensCore.status(
            "INVALID_TOTP_ERROR",
            [
                "currentNumberOfFailedAttempts": .number(Double(min(failed, TOTPRules.triesPerStep))),
                "maxNumberOfFailedAttempts": .number(Double(TOTPRules.triesPerStep))
            ])
    }

    /// The source's code checks spent, as both SuperTokens APIs answer it.
    static func limitReached(retryAfter: Int) -> Response {
        SuperTokensCore.status(
            "LIMIT_REACHED_ERROR",
            [
                "retryAfterMs": .number(Double(retryAfter * 1000)),
                "currentNumberOfFailedAttempts": .number(Double(TOTPRules.triesPerStep)),
                "maxNumberOfFailedAttempts": .number(Double(TOTPRules.triesPerStep))
            ])
    }

    /// A required, non-empty string field (the core's 400 naming it).
    private static func nonEmpty(_ body: [String: JSONValue], _ key: String) throws -> String {
        let value = try SuperTokensCore.text(body, key)
        if value.isEmpty { throw CoreAnswer(400, "\(key) cannot be empty") }
        return value
    }

    /// A required whole number (the core's 400 naming it).
    private static func integer(_ body: [String: JSONValue], _ key: String) throws -> Int {
        guard case .number(let value)? = body[key], value.rounded() == value, abs(value) < 1e9 else {
            throw CoreAnswer(400, "Field name '\(key)' is invalid in JSON input")
        }
        return Int(value)
    }
}
