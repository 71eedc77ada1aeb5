import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// The passwordless recipe's FDI routes, by email: Gatehouse mails the code, and with
/// `--supertokens-website-url` a magic link to the app's `verify` page too (to the Rownd Hub's link
/// page when the Hub asks)
/// (`AppSignInDevices.mailCode`, under the mail budgets and the cool-down the pages keep); the
/// frontend keeps the device's ids; the code is spent through `EmailCodeSignIn`, the link through
/// `MagicLinkSignIn`, as on the pages. Spending either creates a missing account and proves the address.
struct FDIPasswordlessRoutes: Sendable {
    let fdi: SuperTokensFDI
    var env: PageEnvironment { fdi.env }
    private var devices: AppSignInDevices { AppSignInDevices(env: env.accounts) }
    private var allowSignUp: Bool { WayInPolicy.superTokensFrontend.passwordlessCreatesAccounts }
    /// Where a magic link opens for a pre-auth session id, by who asked; nil mails codes only. The
    /// Rownd Hub asks with the plugin's `rownd_display_context=mobile_app`: its link page
    /// (`RowndHubLinkPage`), which finishes in the app's web view or hands on to the app. Else the
    /// app's website (`--supertokens-website-url`). The plugin's `rownd_client_domain` may name
    /// `mobile` or `browser` only: a request never names where a link goes.
    private func link(_ request: Request) throws -> ((String) -> LinkOpening)? {
        guard env.accounts.signInMethods.contains(.magicLink), env.capabilities.contains(.magicLink) else { return nil }
        let display = try request.query.single("rownd_display_context")
        let domain = try request.query.single("rownd_client_domain") ?? (display == "mobile_app" ? "mobile" : "browser")
        switch domain {
        case "mobile":
            return { .pageFragment(RowndAppLinks.loginPath + "?preAuthSessionId=\($0)&tenantId=public") }
        case "browser":
            guard let website = env.configuration.superTokensWebsiteURL else { return nil }
            return { .appFragment(website + "/verify?preAuthSessionId=\($0)&tenantId=public") }
        default:
            throw FDIRefusal.badInput("Unknown clientDomain key: \(domain.prefix(100))")
        }
    }

    func register(on router: inout Router) {
        fdi.on(&router, .post, "/signinup/code", createCode)
        fdi.on(&router, .post, "/signinup/code/resend", resend)
        fdi.on(&router, .post, "/signinup/code/consume", consume)
        fdi.on(&router, .get, "/passwordless/email/exists") { request in
            guard let email = try request.query.single("email"), !email.isEmpty else {
                throw FDIRefusal.badInput("Please provide the email as a GET param")
            }
            let signUp = SignUp(env: env.accounts, via: SuperTokensFDI.via, policy: .superTokensFrontend)
            return SuperTokensFDI.status("OK", ["exists": .bool(try await signUp.addressTaken(email, request: request))])
        }
    }

    private func createCode(_ request: Request) async throws -> Response {
        let body = try SuperTokensFDI.body(request)
        if body["phoneNumber"] != nil, body["email"] == nil {
            throw FDIRefusal.badInput("Gatehouse signs in by email only: send email")
        }
        let email = try SuperTokensFDI.text(body, "email").trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(email) else { throw FDIRefusal.badInput("Please provide a valid email") }
        let link = try link(request)
        switch try await devices.mailCode(
            email: email, allowSignUp: allowSignUp, link: link, via: SuperTokensFDI.via, request: request)
        {
        case .held(let refusal): throw FDIRefusal.rateLimited(refusal.retryAfter)
        case .device(let device):
            return SuperTokensFDI.status(
                "OK",
                [
                    "deviceId": .string(device.deviceID), "preAuthSessionId": .string(device.preAuthSessionID),
                    "flowType": .string(link == nil ? "USER_INPUT_CODE" : "USER_INPUT_CODE_AND_MAGIC_LINK")
                ])
        }
    }

    private func resend(_ request: Request) async throws -> Response {
        let body = try SuperTokensFDI.body(request)
        let deviceID = try SuperTokensFDI.text(body, "deviceId")
        let preAuthSessionID = try SuperTokensFDI.text(body, "preAuthSessionId")
        guard try await devices.device(id: deviceID)?.preAuthSessionID == preAuthSessionID,
            let mailed = try await devices.resendCode(
                deviceID: deviceID, allowSignUp: allowSignUp, via: SuperTokensFDI.via, request: request)
        else { return SuperTokensFDI.status("RESTART_FLOW_ERROR") }
        if case .held(let refusal) = mailed { throw FDIRefusal.rateLimited(refusal.retryAfter) }
        return SuperTokensFDI.status("OK")
    }

    /// Spends the device's code; an account that owes a second step gets the SDK's MFA answer
    /// (`FDISessions.owing`): no session before the step.
    private func consume(_ request: Request) async throws -> Response {
        let body = try SuperTokensFDI.body(request)
        let preAuthSessionID = try SuperTokensFDI.text(body, "preAuthSessionId")
        if body["linkCode"] != nil { return try await consumeLink(request, body, preAuthSessionID: preAuthSessionID) }
        let deviceID = try SuperTokensFDI.text(body, "deviceId")
        let code = try SuperTokensFDI.text(body, "userInputCode")
        guard let device = try await devices.device(id: deviceID), device.preAuthSessionID == preAuthSessionID else {
            return SuperTokensFDI.status("RESTART_FLOW_ERROR")
        }
        switch try await EmailCodeSignIn(env: env.accounts, via: SuperTokensFDI.via).attempt(
            otpID: device.otpID, code: code, email: device.email, request: request)
        {
        case .signedIn(let session):
            try await devices.remove(deviceID)
            return try await signedIn(
                session, factor: "otp-email", createdNewRecipeUser: !device.accountExisted, request: request)
        case .refused(.wrongCode):
            let failed = try await devices.failed(deviceID)
            guard failed < device.maximumAttempts else { return SuperTokensFDI.status("RESTART_FLOW_ERROR") }
            return Self.codeRefused("INCORRECT_USER_INPUT_CODE_ERROR", failed: failed, of: device.maximumAttempts)
        case .refused(.expired):
            return Self.codeRefused("EXPIRED_USER_INPUT_CODE_ERROR", failed: device.failedAttempts, of: device.maximumAttempts)
        case .refused(.throttled(let retryAfter)):
            throw FDIRefusal.rateLimited(retryAfter)
        case .refused(let refusal):
            throw refusal.error
        case .secondStep(let challenge):
            try await devices.remove(deviceID)
            return try await owing(challenge, factor: "otp-email", request: request)
        }
    }

    /// Spends a magic link's `linkCode`, on whichever device opened it: the link is bound to its
    /// pre-auth session id, which the link itself carries.
    private func consumeLink(_ request: Request, _ body: [String: JSONValue], preAuthSessionID: String) async throws -> Response {
        let linkCode = try SuperTokensFDI.text(body, "linkCode")
        guard let device = try await devices.device(preAuthSessionID: preAuthSessionID) else {
            return SuperTokensFDI.status("RESTART_FLOW_ERROR")
        }
        switch try await MagicLinkSignIn(env: env.accounts, via: SuperTokensFDI.via).open(
            token: linkCode, nonce: preAuthSessionID, request: request)
        {
        case .signedIn(let session):
            try await devices.remove(device.deviceID)
            return try await signedIn(
                session, factor: "link-email", createdNewRecipeUser: !device.accountExisted, request: request)
        case .secondStep(let challenge):
            try await devices.remove(device.deviceID)
            return try await owing(challenge, factor: "link-email", request: request)
        case .refused:
            return SuperTokensFDI.status("RESTART_FLOW_ERROR")
        }
    }

    private func signedIn(
        _ session: AuthSession, factor: String, createdNewRecipeUser: Bool, request: Request
    ) async throws -> Response {
        try await fdi.sessions.opening(
            session, factors: [factor], request: request,
            body: Self.answer(session.user, createdNewRecipeUser: createdNewRecipeUser))
    }

    /// A code or link right for an account that owes its second step: the SDK's MFA answer.
    private func owing(_ challenge: MFAChallenge, factor: String, request: Request) async throws -> Response {
        try await fdi.sessions.owing(challenge, factor: factor, request: request) {
            Self.answer($0, createdNewRecipeUser: false)
        }
    }

    private static func answer(_ user: User, createdNewRecipeUser: Bool) -> Response {
        SuperTokensFDI.status(
            "OK",
            [
                "createdNewRecipeUser": .bool(createdNewRecipeUser),
                "user": SuperTokensUser(user: user, recipe: "passwordless").json
            ])
    }

    private static func codeRefused(_ status: String, failed: Int, of maximum: Int) -> Response {
        SuperTokensFDI.status(
            status, ["failedCodeInputAttemptCount": .number(Double(failed)), "maximumCodeInputAttempts": .number(Double(maximum))]
        )
    }
}
