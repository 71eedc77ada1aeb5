import Accounts
import HTTPServer

/// `/auth/not-me?token=`: the sign-up mail's "this wasn't me" link. Opening it only asks (mail
/// scanners open links too); the button posts the token back and the account someone made with the
/// address goes — never one whose address was proven since (`AccountTrust.disown`).
struct NotMePages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.get, "/auth/not-me", env) { visit in
            let token = try visit.query("token") ?? ""
            guard let email = try await AccountTrust(env: env.accounts).disownableAccount(token: token) else {
                return refused(visit)
            }
            return env.renderer.page(
                .notMe, visit.context(title: "Remove this account", ["email": email, "token": token]))
        }
        router.page(.post, "/auth/not-me", env) { visit in
            guard
                let email = try await AccountTrust(env: env.accounts).disown(
                    token: try visit.field("token"), request: visit.request)
            else { return refused(visit) }
            return env.renderer.page(
                .message,
                visit.context(
                    title: "Account removed",
                    [
                        "heading": "The account is removed",
                        "message": "The account made with \(email) is gone, with everything it held. Nobody can sign in to it."
                    ]))
        }
    }

    private func refused(_ visit: Visit) -> Response {
        env.renderer.page(
            .message,
            visit.context(
                title: "Link not valid",
                [
                    "heading": "This link can't be used", "problem": true,
                    "message": "It is wrong, has expired or was used, or the account's address was confirmed since. "
                        + "If the account is yours, sign in or reset its password."
                ]), status: 400)
    }
}
