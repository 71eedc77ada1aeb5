import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `/auth/enchanted?t=`: where an enchanted link (Descope's API) opens. The GET only asks — mail
/// scanners open links too — and the person's POST approves the sign-in the app that asked is
/// polling for (`EnchantedLinkSignIn`); this browser is not signed in.
struct EnchantedLinkPage: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.get, EnchantedLinkSignIn.pagePath, env) { visit in
            env.renderer.page(
                .enchantedLink, visit.context(title: "Approve the sign-in", ["token": try visit.query("t") ?? ""]))
        }
        router.page(.post, EnchantedLinkSignIn.pagePath, env) { visit in
            let approved: Bool
            do {
                approved = try await EnchantedLinkSignIn(env: env.accounts, via: nil).approve(
                    token: try visit.field("t"), request: visit.request)
            } catch AuthError.rateLimited(let wait) {
                return env.renderer.errorPage(
                    visit, status: 429, title: "Too many tries", heading: "Please wait",
                    message: AuthError.rateLimited(retryAfter: wait).pageMessage
                ).retrying(after: wait)
            }
            guard approved else {
                return env.renderer.errorPage(
                    visit, status: 400, title: "Link not valid", heading: "This sign-in link can't be used",
                    message: "The link is wrong, has expired, or was already used. Ask the app for a new one.")
            }
            return env.renderer.page(
                .message,
                visit.context(
                    title: "Sign-in approved",
                    [
                        "heading": "You're signed in on the app",
                        "message": "Go back to the app that asked: it signs you in now. You can close this window."
                    ]))
        }
    }
}
