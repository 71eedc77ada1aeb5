import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `auth/enchantedlink/…`: `signin`, `signup` and `signup-in` mail one link (to the app's allowed
/// `URI`/`redirectUrl`, which passes its `t` to `verify`, else Gatehouse's `/auth/enchanted` page) and answer `{linkId, pendingRef, maskedEmail}`; the app polls
/// `pending-session {pendingRef}`, answered `E062503` until the person opens the link in any
/// browser and confirms there (or the app passes its `t` to `verify {token}`), then JWTs, once.
/// Gatehouse mails one link, not Descope's three: `linkId` is always "1".
struct DescopeEnchantedLinkRoutes: Sendable {
    let api: DescopeAPI
    private var accounts: Accounts { api.env.accounts }

    func register(on router: inout Router) {
        for (route, createsAccount) in [("signin", false), ("signup", true), ("signup-in", true)] {
            api.on(&router, .post, "/v1/auth/enchantedlink/\(route)/email") { call in
                let email = try call.loginID()
                let link = try await api.appLink(call)
                let allowSignUp = createsAccount && WayInPolicy.descopeAPI.passwordlessCreatesAccounts
                switch try await EnchantedLinkSignIn(env: accounts, via: DescopeAPI.via).start(
                    email: email, allowSignUp: allowSignUp, appURL: link,
                    signUpProfile: call.signUpProfile(creating: allowSignUp), request: call.request)
                {
                case .sent(let pendingRef):
                    return try .json(EnchantedLinkStarted(pendingRef: pendingRef, maskedEmail: MaskedEmail(email).maskedEmail))
                case .held(let refusal): throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
                }
            }
        }
        api.on(&router, .post, "/v1/auth/enchantedlink/pending-session") { call in
            let pendingRef = try call.required("pendingRef")
            guard
                let result = try await EnchantedLinkSignIn(env: accounts, via: DescopeAPI.via).poll(
                    pendingRef: pendingRef, request: call.request)
            else {
                throw DescopeAnswer(
                    401, DescopeCode.enchantedLinkPending, "Enchanted link pending", "The link was not opened yet")
            }
            return try await api.answer(result, amr: ["email"], call: call)
        }
        api.on(&router, .post, "/v1/auth/enchantedlink/verify") { call in
            let token = try call.required("token")
            guard try await EnchantedLinkSignIn(env: accounts, via: DescopeAPI.via).approve(token: token, request: call.request)
            else { throw AuthError.invalidCode }
            return try .json([String: String]())
        }
    }
}

/// What an enchanted-link start answers.
private struct EnchantedLinkStarted: Encodable {
    var linkId = "1"
    var pendingRef: String
    var maskedEmail: String
}
