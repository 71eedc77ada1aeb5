import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam

/// Sign-in by a mailed code (`auth/otp/…/email`) or link (`auth/magiclink/…/email`, then
/// `auth/magiclink/verify {token}` with the link's `t`; the link opens the app's `URI`/`redirectUrl`
/// where the call names an allowed one, else Gatehouse's page). `signup` and `signup-in` create a missing
/// account, `signin` does not; every request answers the same masked address whether the address
/// has an account or not. The mails are the pages' own (budgets and lifetimes included); a right
/// code or link marks the address verified. The verify routes also confirm `update/email`'s code
/// or link (`DescopeEmailUpdateRoutes`).
struct DescopePasswordlessRoutes: Sendable {
    let api: DescopeAPI
    private var accounts: Accounts { api.env.accounts }

    /// Which start route: whether it may create the account.
    private enum Start: String, CaseIterable {
        case signUp = "signup"
        case signIn = "signin"
        case signUpOrIn = "signup-in"

        /// `signup` and `signup-in` ask for the account: this way in's policy lets them make it.
        var createsAccount: Bool { self != .signIn && WayInPolicy.descopeAPI.passwordlessCreatesAccounts }
    }

    func register(on router: inout Router) {
        for start in Start.allCases {
            api.on(&router, .post, "/v1/auth/otp/\(start.rawValue)/email") { call in
                let email = try call.loginID()
                if case .held(let refusal) = try await SignInCodes(env: accounts, via: DescopeAPI.via).request(
                    email: email, allowSignUp: start.createsAccount,
                    signUpProfile: call.signUpProfile(creating: start.createsAccount), request: call.request)
                {
                    throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
                }
                return try .json(MaskedEmail(email))
            }
            api.on(&router, .post, "/v1/auth/magiclink/\(start.rawValue)/email") { call in
                let email = try call.loginID()
                // The link opens the app's address (its `t` for `magiclink/verify`), else Gatehouse's
                // own page, bound to no browser (a nonce nobody holds): there it asks the person to
                // confirm first.
                let link = try await api.appLink(call)
                let binding = MagicLinkSignIn(env: accounts).binding(of: SecureRandom.token())
                if case .held(let refusal) = try await MailRequests(env: accounts, via: DescopeAPI.via).magicLink(
                    email: email, allowSignUp: start.createsAccount, browserBinding: binding,
                    opening: link.map(LinkOpening.app), signUpProfile: call.signUpProfile(creating: start.createsAccount),
                    request: call.request)
                {
                    throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
                }
                return try .json(MaskedEmail(email))
            }
        }
        api.on(&router, .post, "/v1/auth/otp/verify/email") { call in
            let (email, code) = (try call.loginID(), try call.required("code"))
            // The same route confirms an `otp/update/email` code sent for this address.
            if let moved = try await MailedCodeChecks(env: accounts, via: DescopeAPI.via).completeProvenEmailChange(
                email: email, code: code, policy: .descopeAPI, request: call.request)
            {
                return try await api.signedIn(moved, amr: ["email"], call: call)
            }
            let result = try await SignInCodes(env: accounts, via: DescopeAPI.via).check(
                email: email, code: code, name: nil, request: call.request)
            if case .refused(.throttled(let wait)) = result { throw DescopeAnswer.tooManyOTPAttempts(wait) }
            return try await api.answer(result, amr: ["email"], call: call, keepingStepFor: email)
        }
        api.on(&router, .post, "/v1/auth/magiclink/verify") { call in
            let token = try call.required("token")
            let result = try await MagicLinkSignIn(env: accounts).open(token: token, nonce: nil, request: call.request)
            guard case .refused = result else { return try await api.answer(result, amr: ["email"], call: call) }
            // Or the link of a `magiclink/update/email`.
            guard
                let moved = try await MailedCodeChecks(env: accounts, via: DescopeAPI.via).completeProvenEmailChange(
                    linkToken: token, policy: .descopeAPI, request: call.request)
            else { throw AuthError.invalidCode }
            return try await api.signedIn(moved, amr: ["email"], call: call)
        }
    }
}
