import Accounts
import AuthCore
import Foundation
import HTTPServer
import WebAuthn

/// A superuser's own passkeys on the console (`Passkeys`, as a person's): "Sign in with a passkey" on `/_/`
/// (a button, and the browser's autofill), and create and delete on `/_/security`. The ceremonies
/// run in `Public/js/passkeys.js`, as on the account pages, which posts forms here and reads
/// `{publicKey}`, `{redirect}` or `{error, message, status}` back.
struct ConsolePasskeyPages: Sendable {
    let env: PageEnvironment

    private var passkeys: Passkeys { Passkeys(env: env.accounts) }

    func register(on router: inout Router) {
        router.page(.post, "/_/passkey/options", env) { visit in
            guard let rp = relyingParty(visit) else { return PasskeyPages.hostRefused }
            do {
                return try .json(["publicKey": try await passkeys.staffSignInOptions(rp: rp, request: visit.request)])
            } catch let error as PasskeyError {
                return PasskeyPages.error(error)
            }
        }
        router.page(.post, "/_/passkey/sign-in", env, signIn)
        router.consolePage(.post, "/_/security/passkeys/options", env) { visit, staff in
            guard let rp = relyingParty(visit) else { return PasskeyPages.hostRefused }
            do {
                let options = try await passkeys.registrationOptions(
                    for: staff, rp: rp, rpName: RelyingParty.displayName, request: visit.request)
                return try .json(["publicKey": options])
            } catch let error as PasskeyError {
                return PasskeyPages.error(error)
            } catch let refusal as FreshSignInRequired {
                return PasskeyPages.error(refusal)
            }
        }
        router.consolePage(.post, "/_/security/passkeys", env) { visit, staff in
            guard let rp = relyingParty(visit) else { return PasskeyPages.hostRefused }
            do {
                _ = try await passkeys.register(
                    Array(try visit.field("credential").utf8), name: try visit.form.single("name"), for: staff,
                    rp: rp, request: visit.request)
            } catch let error as PasskeyError {
                return PasskeyPages.error(error)
            } catch let refusal as FreshSignInRequired {
                return PasskeyPages.error(refusal)
            }
            return try .json(["redirect": "/_/security?notice=\(Notice.passkeyAdded.rawValue)"])
        }
        router.consolePage(.post, "/_/security/passkeys/:id/delete", env) { visit, staff in
            let id = try visit.parameters.require("id", as: Int64.self)
            try await passkeys.delete(id: id, of: staff, request: visit.request)
            return .redirect(to: "/_/security?notice=\(Notice.passkeyDeleted.rawValue)")
        }
    }

    /// Checks the assertion and, when it holds, starts the console session: the passkey is both
    /// factors, so no authenticator-app step follows.
    private func signIn(_ visit: Visit) async throws -> Response {
        guard let rp = relyingParty(visit) else { return PasskeyPages.hostRefused }
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/_/users")
        switch await passkeys.staffSignIn(Array(try visit.field("credential").utf8), rp: rp, request: visit.request) {
        case .refused(let error):
            return PasskeyPages.error(error)
        case .signedIn(_, let token):
            var response = try Response.json(["redirect": redirect.hasPrefix("/_/") ? redirect : "/_/users"])
            response.setCookie(env.console.cookie(token: token))
            response.setCookie(env.staffSignIn.clearedSecondStepCookie(secure: env.configuration.usesTLS))
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        }
    }

    /// The security page's passkey list.
    func section(_ staff: Staff) async throws -> [[String: Any]] {
        try await passkeys.list(of: staff).map { passkey in
            [
                "id": String(passkey.id), "name": passkey.name, "created": DisplayDate.dayAndMinute(passkey.createdAt),
                "lastUsed": passkey.lastUsedAt.map(DisplayDate.dayAndMinute) ?? "never", "synced": passkey.backedUp
            ]
        }
    }

    private func relyingParty(_ visit: Visit) -> RelyingParty? {
        RelyingParty.serving(visit.request, configuration: env.configuration)
    }
}
