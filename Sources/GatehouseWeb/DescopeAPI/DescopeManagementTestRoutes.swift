import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Codes and links for a test suite instead of mail (`TestSignInSecrets`): `tests/generate/otp`
/// → `{code, loginId}` (for `otp/verify/email`), `…/magiclink` → `{link, loginId}` (its `t` for
/// `magiclink/verify`), `…/enchantedlink` → `{link, loginId, pendingRef}` (the app polls
/// `enchantedlink/pending-session`), each for a test user only; `user/signin/embeddedlink` and
/// `user/signup/embeddedlink` → `{token}` for any account (or a new one), spent by `magiclink/verify`.
struct DescopeManagementTestRoutes: Sendable {
    let management: DescopeManagement

    func register(on router: inout Router) {
        management.on(&router, .post, "/v1/mgmt/tests/generate/otp") { call, key in
            try DescopeManagement.requireEmailDelivery(call)
            let email = try call.loginID()
            let code = try await secrets(key).code(email: email, request: call.request)
            return try .json(["code": code, "loginId": email])
        }
        management.on(&router, .post, "/v1/mgmt/tests/generate/magiclink") { call, key in
            try DescopeManagement.requireEmailDelivery(call)
            let email = try call.loginID()
            let opening = try await management.api.appLink(call).map(LinkOpening.app) ?? .magicLinkPage
            let token = try await secrets(key).magicLink(email: email, request: call.request)
            return try .json(["link": management.address(of: token, opening: opening, request: call.request), "loginId": email])
        }
        management.on(&router, .post, "/v1/mgmt/tests/generate/enchantedlink") { call, key in
            let email = try call.loginID()
            let opening = try await management.api.appLink(call).map(LinkOpening.app) ?? .page(EnchantedLinkSignIn.pagePath)
            let issued = try await secrets(key).enchantedLink(email: email, request: call.request)
            return try .json([
                "link": management.address(of: issued.token, opening: opening, request: call.request), "loginId": email,
                "pendingRef": issued.pendingRef
            ])
        }
        management.on(&router, .post, "/v1/mgmt/user/signin/embeddedlink") { call, key in
            let token = try await secrets(key).embeddedLink(
                email: try call.loginID(), allowSignUp: false, signUpProfile: nil, request: call.request)
            return try .json(["token": token])
        }
        management.on(&router, .post, "/v1/mgmt/user/signup/embeddedlink") { call, key in
            let token = try await secrets(key).embeddedLink(
                email: try call.loginID(), allowSignUp: true, signUpProfile: call.signUpProfile(creating: true),
                request: call.request)
            return try .json(["token": token])
        }
    }

    private func secrets(_ key: ManagementKey) -> TestSignInSecrets {
        TestSignInSecrets(env: management.accounts, via: DescopeManagement.via, key: key)
    }
}
