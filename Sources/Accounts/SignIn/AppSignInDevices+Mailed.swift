import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam
import Store

/// Devices for sign-in codes Gatehouse mails itself (SuperTokens' frontend API: the frontend keeps
/// the device and pre-auth session ids, the person types the mailed code): the mail is
/// `MailRequests.signInCode`'s, under its budgets and cool-down, and the device follows its request.
extension AppSignInDevices {
    /// How long a mailed code works and how many wrong tries end it, as the frontend is told; the
    /// backend holds its own (the same defaults) and decides.
    static let mailedCodeLifetime: TimeInterval = 10 * 60
    static let mailedCodeTries = 5

    /// What a mail request came to.
    public enum Mailed: Sendable {
        case device(Device)
        case held(Budgets.Refusal)
    }

    /// Mails a code to `email` and opens a device for it; `allowSignUp` lets the code create the
    /// account. With `link`, a sign-in link opening `link(preAuthSessionID)` is mailed first, bound
    /// to the device's pre-auth session id (`MagicLinkSignIn.open(token:nonce:)` with that id
    /// opens it, on any device: the id is in the link).
    public func mailCode(
        email: String, allowSignUp: Bool, link: ((String) -> LinkOpening)? = nil, via: String, request: Request
    ) async throws -> Mailed {
        let existed = try await env.backend.admin.user(email: email) != nil
        let (deviceID, preAuthSessionID) = (SecureRandom.token(), SecureRandom.token())
        let requests = MailRequests(env: env, via: via)
        if let link,
            case .held(let refusal) = try await requests.magicLink(
                email: email, allowSignUp: allowSignUp,
                browserBinding: MagicLinkSignIn(env: env).binding(of: preAuthSessionID), opening: link(preAuthSessionID),
                request: request)
        {
            return .held(refusal)
        }
        switch try await requests.signInCode(email: email, allowSignUp: allowSignUp, request: request) {
        case .held(let refusal):
            return .held(refusal)
        case .sent(let otpID):
            let now = env.clock()
            let device = SignInDeviceRecord(
                deviceID: deviceID, preAuthSessionID: preAuthSessionID, email: email, accountExisted: existed,
                otpID: otpID, codeID: SecureRandom.token(), codeCreatedAt: now, codeLifetime: Self.mailedCodeLifetime,
                maximumAttempts: Self.mailedCodeTries)
            try await env.database.insertSignInDevice(device, now: now)
            return .device(Device(device))
        }
    }

    /// Mails a new code for the device (the old one stops working); nil when the device is gone.
    public func resendCode(deviceID: String, allowSignUp: Bool, via: String, request: Request) async throws -> Mailed? {
        guard let device = try await device(id: deviceID) else { return nil }
        switch try await MailRequests(env: env, via: via).signInCode(
            email: device.email, allowSignUp: allowSignUp, request: request)
        {
        case .held(let refusal):
            return .held(refusal)
        case .sent(let otpID):
            let moved = try await env.database.moveSignInDevice(
                id: deviceID, otpID: otpID, codeID: SecureRandom.token(), createdAt: env.clock(),
                lifetime: Self.mailedCodeLifetime,
                maximumAttempts: Self.mailedCodeTries)
            return moved.map { .device(Device($0)) }
        }
    }
}
