import Accounts
import AuthCore
import Foundation
import HTTPServer
import WebAuthn

/// Passkeys on the hosted pages: "Sign in with a passkey" on `/auth/sign-in` (a button, and the
/// browser's autofill where it offers passkeys), "Sign up with a passkey" on `/auth/sign-up` (an
/// account with no password), and the passkey list on `/account/security` (create, rename, delete). The ceremonies run in `Public/js/passkeys.js`, which posts forms
/// (CSRF token included) here and reads JSON back: `{publicKey: options}` to start, then
/// `{redirect}` or Gatehouse's `{error, message, status}`. Rename and delete are plain forms.
struct PasskeyPages: Sendable {
    let env: PageEnvironment

    private var passkeys: Passkeys { Passkeys(env: env.accounts) }

    func register(on router: inout Router) {
        router.page(.post, "/auth/passkey/options", env) { visit in
            guard let rp = relyingParty(visit) else { return Self.hostRefused }
            do {
                return try .json([
                    "publicKey": try await passkeys.signInOptions(
                        email: try visit.form.single("email"), rp: rp, request: visit.request)
                ])
            } catch let error as PasskeyError {
                return Self.error(error)
            }
        }
        router.page(.post, "/auth/passkey/sign-in", env, signIn)
        router.page(.post, "/auth/sign-up/passkey/options", env) { visit in
            guard let rp = relyingParty(visit) else { return Self.hostRefused }
            do {
                return try .json(
                    try await passkeys.signUpOptions(
                        email: try visit.field("email"), name: try visit.form.single("name"), rp: rp,
                        rpName: RelyingParty.displayName, request: visit.request))
            } catch let error as PasskeyError {
                return Self.error(error)
            }
        }
        router.page(.post, "/auth/sign-up/passkey", env, signUp)
        router.page(.post, "/account/security/passkeys/options", env) { visit in
            guard let signedIn = visit.signedIn else { return Self.signedOut }
            guard let rp = relyingParty(visit) else { return Self.hostRefused }
            do {
                let options = try await passkeys.registrationOptions(
                    for: signedIn, rp: rp, rpName: RelyingParty.displayName, request: visit.request, policy: .serverDefaults)
                return try .json(["publicKey": options])
            } catch let error as PasskeyError {
                return Self.error(error)
            } catch let refusal as FreshSignInRequired {
                return Self.error(refusal)
            }
        }
        router.page(.post, "/account/security/passkeys", env) { visit in
            guard let signedIn = visit.signedIn else { return Self.signedOut }
            guard let rp = relyingParty(visit) else { return Self.hostRefused }
            do {
                _ = try await passkeys.register(
                    Array(try visit.field("credential").utf8), name: try visit.form.single("name"), for: signedIn, rp: rp,
                    request: visit.request, policy: .serverDefaults)
            } catch let error as PasskeyError {
                return Self.error(error)
            } catch let refusal as FreshSignInRequired {
                return Self.error(refusal)
            }
            return try .json(["redirect": "/account/security?notice=\(Notice.passkeyAdded.rawValue)"])
        }
        router.page(.post, "/account/security/passkeys/:id/rename", env) { visit in
            guard let signedIn = visit.signedIn else { return Self.signedOut }
            let id = try visit.parameters.require("id", as: Int64.self)
            try await passkeys.rename(id: id, to: try visit.field("name"), of: signedIn, request: visit.request)
            return .redirect(to: "/account/security?notice=\(Notice.passkeyRenamed.rawValue)")
        }
        router.page(.post, "/account/security/passkeys/:id/delete", env) { visit in
            guard let signedIn = visit.signedIn else { return Self.signedOut }
            let id = try visit.parameters.require("id", as: Int64.self)
            do {
                try await passkeys.delete(id: id, of: signedIn, request: visit.request)
            } catch PasskeyError.lastSignInMethod {
                var errors = FormErrors()
                errors.add("form", PasskeyError.lastSignInMethod.message)
                return try await SecurityPages(env: env).render(visit, signedIn, errors: errors, status: 409)
            }
            return .redirect(to: "/account/security?notice=\(Notice.passkeyDeleted.rawValue)")
        }
    }

    /// Checks the assertion and, when it holds, starts the browser session: the passkey is both
    /// factors, so no second step follows even when the account has an authenticator app.
    private func signIn(_ visit: Visit) async throws -> Response {
        guard let rp = relyingParty(visit) else { return Self.hostRefused }
        let redirect = URLQuery.localRedirect(try visit.form.single("redirect"), fallback: "/account")
        switch await passkeys.signIn(Array(try visit.field("credential").utf8), rp: rp, request: visit.request) {
        case .refused(let error):
            return Self.error(error)
        case .signedIn(let session):
            var response = try Response.json(["redirect": PasswordlessPages.landing(visit, redirect)])
            try await env.sessions.start(session, replacing: visit.signedIn, request: visit.request, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        }
    }

    /// A passkey-only sign-up's finish: the account made and its passkey stored, then signed in —
    /// or sent to verify its address first, as a password sign-up is (a taken address answered
    /// alike while addresses are verified).
    private func signUp(_ visit: Visit) async throws -> Response {
        guard let rp = relyingParty(visit) else { return Self.hostRefused }
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let verify = URLQuery.path("/auth/verify", [("email", email)])
        do {
            let outcome = try await passkeys.signUp(
                Array(try visit.field("credential").utf8), email: email, name: try visit.form.single("name"),
                user: try visit.field("user"), rp: rp, request: visit.request)
            guard !outcome.requireEmailVerification, let session = outcome.session else {
                return try .json(["redirect": URLQuery.path("/auth/verify", [("email", outcome.user.email)])])
            }
            var response = try Response.json([
                "redirect": AppFlow.landing(visit.request, otherwise: "/account?notice=\(Notice.welcome.rawValue)")
            ])
            try await env.sessions.start(session, replacing: visit.signedIn, request: visit.request, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        } catch let error as PasskeyError {
            return Self.error(error)
        } catch AuthError.rateLimited(let wait) {
            return Self.refusal("rate_limited", SignUpPages.tooManySignUps(wait), status: 429).retrying(after: wait)
        } catch AuthError.validation(let fields) {
            return Self.refusal("validation_failed", fields.map(\.message).joined(separator: " "), status: 422)
        } catch AuthError.emailExists where env.verificationMode != .none {
            // As the password form answers: no account is revealed; the owner was mailed.
            await SignUp(env: env.accounts, via: nil).refusedTakenAddress(email, request: visit.request)
            return try .json(["redirect": verify])
        } catch AuthError.emailExists {
            return Self.refusal("email_exists", SignUpPages.emailTaken, status: 409)
        }
    }

    /// Whether the signed-in person could add a passkey here now (a recent sign-in) and has none yet.
    func hasNone(_ visit: Visit) async throws -> Bool {
        guard passkeys.available, let signedIn = visit.signedIn,
            !passkeys.needsFreshSignIn(signedIn, policy: .serverDefaults)
        else { return false }
        return try await passkeys.list(of: signedIn).isEmpty
    }

    /// The security page's passkey section: the list, or why there is none.
    func section(_ signedIn: SignedIn) async throws -> [String: Any] {
        guard passkeys.available else { return ["supported": false] }
        let list = try await passkeys.list(of: signedIn)
        return [
            "supported": true, "impersonating": signedIn.session.impersonator != nil,
            "signInAgain": passkeys.needsFreshSignIn(signedIn, policy: .serverDefaults)
                ? SecurityPages.signInAgain(.addPasskey, signedIn) : [:],
            "items": list.map { passkey in
                [
                    "id": String(passkey.id), "name": passkey.name, "created": DisplayDate.dayAndMinute(passkey.createdAt),
                    "lastUsed": passkey.lastUsedAt.map(DisplayDate.dayAndMinute) ?? "never",
                    "synced": passkey.backedUp, "transports": passkey.transports.joined(separator: ", ")
                ] as [String: Any]
            }
        ]
    }

    private func relyingParty(_ visit: Visit) -> RelyingParty? {
        RelyingParty.serving(visit.request, configuration: env.configuration)
    }

    /// A refusal as `{error, message, status}` (with `Retry-After` when throttled).
    static func error(_ error: PasskeyError) -> Response {
        let response = refusal(error.reason, error.message, status: error.status)
        guard case .rateLimited(let wait) = error else { return response }
        return response.retrying(after: wait)
    }

    /// A passkey asked for in a session too old to add one (`RecentSignIn`), in the same shape.
    static func error(_ refusal: FreshSignInRequired) -> Response {
        Self.refusal("fresh_sign_in_required", refusal.message, status: refusal.status)
    }

    private static func refusal(_ code: String, _ message: String, status: Int) -> Response {
        .json(raw: errorBody(code: code, message: message, status: status), status: status)
    }

    static let hostRefused = Response.json(
        raw: errorBody(
            code: "host_not_supported",
            message: "Passkeys need a host name, not an IP address: open this page at localhost or the server's public URL.",
            status: 400), status: 400)

    static let signedOut = Response.json(
        raw: errorBody(code: "signed_out", message: "Your session has ended. Sign in again.", status: 401), status: 401)

    private static func errorBody(code: String, message: String, status: Int) -> String {
        let body: [String: JSONValue] = ["error": .string(code), "message": .string(message), "status": .number(Double(status))]
        return (try? String(decoding: JSONEncoder().encode(body), as: UTF8.self)) ?? "{}"
    }
}
