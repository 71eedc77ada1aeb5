import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam

/// The core's passwordless recipe by email: a device is one sign-in request — a code and a link
/// the app mails together (`AppBackendActs.signInSecrets`, under the address's sign-in-mail
/// budgets) — spent through the owners the code page and magic links use. Spending either
/// creates a missing account (`WayInPolicy.superTokensCore`) and verifies the address.
struct SuperTokensPasswordlessRoutes: Sendable {
    let core: SuperTokensCore
    let devices: SuperTokensDevices

    func register(on router: inout Router) {
        core.on(&router, .post, "/recipe/signinup/code", tenantScoped: true, createCode)
        core.on(&router, .get, "/recipe/signinup/codes", tenantScoped: true, listCodes)
        core.on(&router, .post, "/recipe/signinup/code/consume", tenantScoped: true, consume)
        core.on(&router, .post, "/recipe/signinup/code/check", tenantScoped: true, check)
    }

    /// A new device for `email`, or (`deviceId`) a new code and link for a device.
    private func createCode(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        if let deviceID = try SuperTokensCore.optionalText(body, "deviceId") {
            guard let device = await devices.device(id: deviceID) else { return SuperTokensCore.status("RESTART_FLOW_ERROR") }
            let secrets = try await core.acts.signInSecrets(email: device.email, policy: .superTokensCore, request: request)
            guard let moved = await devices.moved(deviceID, to: code(secrets)) else {
                return SuperTokensCore.status("RESTART_FLOW_ERROR")
            }
            return answer(moved, secrets)
        }
        if body["phoneNumber"] != nil, body["email"] == nil {
            throw CoreAnswer(400, "Gatehouse signs in by email only: send email")
        }
        let email = try SuperTokensCore.text(body, "email").trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(email) else { throw CoreAnswer(400, "Field name 'email' is invalid in JSON input") }
        let existed = try await !core.accounts(email: email).isEmpty
        let secrets = try await core.acts.signInSecrets(email: email, policy: .superTokensCore, request: request)
        let device = SuperTokensDevices.Device(
            deviceID: SecureRandom.token(), preAuthSessionID: SecureRandom.token(), email: email, accountExisted: existed,
            code: code(secrets))
        await devices.add(device)
        return answer(device, secrets)
    }

    /// The device's record of a code the backend issued now.
    private func code(_ secrets: SignInSecrets) -> SuperTokensDevices.Code {
        SuperTokensDevices.Code(
            otpID: secrets.otpID, codeID: SecureRandom.token(), createdAt: core.env.accounts.clock(),
            lifetime: secrets.lifetime, maximumAttempts: secrets.maximumAttempts)
    }

    private func answer(_ device: SuperTokensDevices.Device, _ secrets: SignInSecrets) -> Response {
        SuperTokensCore.status(
            "OK",
            [
                "preAuthSessionId": .string(device.preAuthSessionID), "codeId": .string(device.code.codeID),
                "deviceId": .string(device.deviceID), "userInputCode": .string(secrets.code),
                "linkCode": .string(secrets.link), "codeLifetime": .number(secrets.lifetime * 1000),
                "timeCreated": .number((device.code.createdAt.timeIntervalSince1970 * 1000).rounded(.down))
            ])
    }

    private func listCodes(_ request: Request, _: [String: JSONValue]) async throws -> Response {
        let device: SuperTokensDevices.Device?
        if let id = try request.query.single("deviceId") {
            device = await devices.device(id: id)
        } else {
            device = await devices.device(preAuthSessionID: try SuperTokensCore.query(request, "preAuthSessionId"))
        }
        guard let device else { return SuperTokensCore.status("OK", ["devices": .array([])]) }
        return SuperTokensCore.status("OK", ["devices": .array([Self.describe(device, withCodes: true)])])
    }

    /// Spends the device's code (`deviceId` + `userInputCode`) or its link (`linkCode`).
    private func consume(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let preAuthSessionID = try SuperTokensCore.text(body, "preAuthSessionId")
        guard let device = await devices.device(preAuthSessionID: preAuthSessionID) else {
            return SuperTokensCore.status("RESTART_FLOW_ERROR")
        }
        let session: AuthSession?
        if let link = try SuperTokensCore.optionalText(body, "linkCode") {
            switch try await MagicLinkSignIn(env: core.env.accounts, via: SuperTokensCore.via).open(
                token: link, nonce: nil, request: request)
            {
            case .signedIn(let opened): session = opened
            case .secondStepRequired(let challenge): session = try await awaitSecondStep(challenge, device)
            case .openedElsewhere, .refused: return SuperTokensCore.status("RESTART_FLOW_ERROR")
            }
        } else {
            guard try SuperTokensCore.text(body, "deviceId") == device.deviceID else {
                return SuperTokensCore.status("RESTART_FLOW_ERROR")
            }
            let code = try SuperTokensCore.text(body, "userInputCode")
            switch try await EmailCodeSignIn(env: core.env.accounts, via: SuperTokensCore.via).attempt(
                otpID: device.code.otpID, code: code, email: device.email, request: request)
            {
            case .signedIn(let opened):
                session = opened
            case .wrongCode:
                return Self.codeRefused(
                    "INCORRECT_USER_INPUT_CODE_ERROR", device, failed: await devices.failed(device.deviceID))
            case .expired:
                return Self.codeRefused("EXPIRED_USER_INPUT_CODE_ERROR", device, failed: device.failedAttempts)
            case .throttled(let retryAfter):
                throw AuthError.rateLimited(retryAfter: retryAfter)
            case .secondStepRequired(let challenge):
                session = try await awaitSecondStep(challenge, device)
            }
        }
        await devices.remove(device.deviceID)
        guard let user = await handOver(session, device) else { return SuperTokensCore.status("RESTART_FLOW_ERROR") }
        return SuperTokensCore.status(
            "OK",
            [
                "createdNewUser": .bool(!device.accountExisted),
                "user": SuperTokensUser(user: user, recipe: "passwordless").json, "recipeUserId": .string(user.id.rawValue),
                "consumedDevice": Self.describe(device, withCodes: false)
            ])
    }

    /// Checks the device's code or link without spending it (`consume` spends it next): a right
    /// one answers the device, a wrong code counts one of its tries.
    private func check(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let preAuthSessionID = try SuperTokensCore.text(body, "preAuthSessionId")
        guard let device = await devices.device(preAuthSessionID: preAuthSessionID) else {
            return SuperTokensCore.status("RESTART_FLOW_ERROR")
        }
        let checked: AppBackendActs.SignInCheck
        if let link = try SuperTokensCore.optionalText(body, "linkCode") {
            checked = try await core.acts.checkSignInLink(token: link, email: device.email, request: request)
            if checked == .wrong || checked == .expired { return SuperTokensCore.status("RESTART_FLOW_ERROR") }
        } else {
            guard try SuperTokensCore.text(body, "deviceId") == device.deviceID else {
                return SuperTokensCore.status("RESTART_FLOW_ERROR")
            }
            checked = try await core.acts.checkSignInCode(
                otpID: device.code.otpID, code: try SuperTokensCore.text(body, "userInputCode"), email: device.email,
                request: request)
        }
        switch checked {
        case .right:
            return SuperTokensCore.status("OK", ["consumedDevice": Self.describe(device, withCodes: false)])
        case .wrong:
            return Self.codeRefused("INCORRECT_USER_INPUT_CODE_ERROR", device, failed: await devices.failed(device.deviceID))
        case .expired:
            return Self.codeRefused("EXPIRED_USER_INPUT_CODE_ERROR", device, failed: device.failedAttempts)
        case .throttled(let retryAfter):
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }

    /// A right code or link for an account with an authenticator: its second step waits for
    /// `totp/verify` (the SDK's MFA recipe asks for it); no session was opened.
    private func awaitSecondStep(_ challenge: MFAChallenge, _ device: SuperTokensDevices.Device) async throws -> AuthSession? {
        if let user = try await core.accounts(email: device.email).first { try await core.awaitSecondStep(challenge, of: user) }
        return nil
    }

    /// The account signed in: the backend's session closed (the app opens its own), or found by
    /// the device's address when the sign-in waits for its second step.
    private func handOver(_ session: AuthSession?, _ device: SuperTokensDevices.Device) async -> User? {
        guard let session else { return try? await core.accounts(email: device.email).first }
        return await core.acts.handOver(session)
    }

    private static func codeRefused(_ status: String, _ device: SuperTokensDevices.Device, failed: Int) -> Response {
        SuperTokensCore.status(
            status,
            [
                "failedCodeInputAttemptCount": .number(Double(failed)),
                "maximumCodeInputAttempts": .number(Double(device.code.maximumAttempts))
            ])
    }

    private static func describe(_ device: SuperTokensDevices.Device, withCodes: Bool) -> JSONValue {
        var fields: [String: JSONValue] = [
            "preAuthSessionId": .string(device.preAuthSessionID), "email": .string(device.email),
            "failedCodeInputAttemptCount": .number(Double(device.failedAttempts))
        ]
        if withCodes {
            fields["codes"] = .array([
                .object([
                    "codeId": .string(device.code.codeID),
                    "timeCreated": .number((device.code.createdAt.timeIntervalSince1970 * 1000).rounded(.down)),
                    "codeLifetime": .number(device.code.lifetime * 1000)
                ])
            ])
        }
        return .object(fields)
    }
}
