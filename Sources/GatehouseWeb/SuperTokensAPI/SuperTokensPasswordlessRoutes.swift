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
    typealias Device = AppSignInDevices.Device
    let core: SuperTokensCore
    private var devices: AppSignInDevices { core.devices }

    func register(on router: inout Router) {
        core.on(&router, .post, "/recipe/signinup/code", tenantScoped: true, createCode)
        core.on(&router, .get, "/recipe/signinup/codes", tenantScoped: true, listCodes)
        core.on(&router, .post, "/recipe/signinup/code/consume", tenantScoped: true, consume)
        core.on(&router, .post, "/recipe/signinup/code/check", tenantScoped: true, check)
    }

    /// A new device for `email`, or (`deviceId`) a new code and link for a device.
    private func createCode(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        if let deviceID = try SuperTokensCore.optionalText(body, "deviceId") {
            guard let device = try await devices.device(id: deviceID) else { return SuperTokensCore.status("RESTART_FLOW_ERROR") }
            let secrets = try await core.acts.signInSecrets(email: device.email, policy: .superTokensCore, request: request)
            guard let moved = try await devices.moved(deviceID, to: secrets) else {
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
        let device = try await devices.add(email: email, accountExisted: existed, secrets: secrets)
        return answer(device, secrets)
    }

    private func answer(_ device: Device, _ secrets: SignInSecrets) -> Response {
        SuperTokensCore.status(
            "OK",
            [
                "preAuthSessionId": .string(device.preAuthSessionID), "codeId": .string(device.codeID),
                "deviceId": .string(device.deviceID), "userInputCode": .string(secrets.code),
                "linkCode": .string(secrets.link), "codeLifetime": .number(secrets.lifetime * 1000),
                "timeCreated": Self.milliseconds(device.codeCreatedAt)
            ])
    }

    private func listCodes(_ request: Request, _: [String: JSONValue]) async throws -> Response {
        let found: [Device]
        if let id = try request.query.single("deviceId") {
            found = try await devices.device(id: id).map { [$0] } ?? []
        } else if let email = try request.query.single("email") {
            found = try await devices.devices(email: email)
        } else if try request.query.single("phoneNumber") != nil {
            found = []  // Gatehouse signs in by email only: no device has a phone number.
        } else {
            found =
                try await devices.device(preAuthSessionID: try SuperTokensCore.query(request, "preAuthSessionId")).map { [$0] }
                ?? []
        }
        return SuperTokensCore.status("OK", ["devices": .array(found.map { Self.describe($0, withCodes: true) })])
    }

    /// Spends the device's code (`deviceId` + `userInputCode`) or its link (`linkCode`).
    private func consume(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let preAuthSessionID = try SuperTokensCore.text(body, "preAuthSessionId")
        guard let device = try await devices.device(preAuthSessionID: preAuthSessionID) else {
            return SuperTokensCore.status("RESTART_FLOW_ERROR")
        }
        let result: SignInResult
        if let link = try SuperTokensCore.optionalText(body, "linkCode") {
            result = try await MagicLinkSignIn(env: core.env.accounts, via: SuperTokensCore.via).open(
                token: link, nonce: nil, request: request)
            if case .refused = result { return SuperTokensCore.status("RESTART_FLOW_ERROR") }
        } else {
            guard try SuperTokensCore.text(body, "deviceId") == device.deviceID else {
                return SuperTokensCore.status("RESTART_FLOW_ERROR")
            }
            let code = try SuperTokensCore.text(body, "userInputCode")
            result = try await EmailCodeSignIn(env: core.env.accounts, via: SuperTokensCore.via).attempt(
                otpID: device.otpID, code: code, email: device.email, request: request)
            switch result {
            case .refused(.wrongCode):
                return Self.codeRefused(
                    "INCORRECT_USER_INPUT_CODE_ERROR", device, failed: try await devices.failed(device.deviceID))
            case .refused(.expired):
                return Self.codeRefused("EXPIRED_USER_INPUT_CODE_ERROR", device, failed: device.failedAttempts)
            case .refused(let refusal):
                throw refusal.error
            case .signedIn, .secondStep:
                break
            }
        }
        try await devices.remove(device.deviceID)
        guard let user = try await core.signedInUser(result, email: device.email) else {
            return SuperTokensCore.status("RESTART_FLOW_ERROR")
        }
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
        guard let device = try await devices.device(preAuthSessionID: preAuthSessionID) else {
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
                otpID: device.otpID, code: try SuperTokensCore.text(body, "userInputCode"), email: device.email,
                request: request)
        }
        switch checked {
        case .right:
            return SuperTokensCore.status("OK", ["consumedDevice": Self.describe(device, withCodes: false)])
        case .wrong:
            return Self.codeRefused("INCORRECT_USER_INPUT_CODE_ERROR", device, failed: try await devices.failed(device.deviceID))
        case .expired:
            return Self.codeRefused("EXPIRED_USER_INPUT_CODE_ERROR", device, failed: device.failedAttempts)
        case .throttled(let retryAfter):
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }

    private static func codeRefused(_ status: String, _ device: Device, failed: Int) -> Response {
        SuperTokensCore.status(
            status,
            [
                "failedCodeInputAttemptCount": .number(Double(failed)),
                "maximumCodeInputAttempts": .number(Double(device.maximumAttempts))
            ])
    }

    private static func describe(_ device: Device, withCodes: Bool) -> JSONValue {
        var fields: [String: JSONValue] = [
            "preAuthSessionId": .string(device.preAuthSessionID), "email": .string(device.email),
            "failedCodeInputAttemptCount": .number(Double(device.failedAttempts))
        ]
        if withCodes {
            fields["codes"] = .array([
                .object([
                    "codeId": .string(device.codeID), "timeCreated": milliseconds(device.codeCreatedAt),
                    "codeLifetime": .number(device.codeLifetime * 1000)
                ])
            ])
        }
        return .object(fields)
    }

    private static func milliseconds(_ date: Date) -> JSONValue {
        .number((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
