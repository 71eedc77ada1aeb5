import Accounts
import AuthCore
import Foundation
import HTTPServer
import Store
import WebAuthn

/// Passkeys on the hosted pages: "Sign in with a passkey" on `/auth/sign-in` (a button, and the
/// browser's autofill where it offers passkeys), and the passkey list on `/account/security`
/// (create, rename, delete). The ceremonies run in `Public/js/passkeys.js`, which posts forms
/// (CSRF token included) here and reads JSON back: `{publicKey: options}` to start, then
/// `{redirect}` or Gatehouse's `{error, message, status}`. Rename and delete are plain forms.
struct PasskeyPages: Sendable {
    let env: PageEnvironment

    private var passkeys: Passkeys { Passkeys(env: env.accounts) }

    func register(on router: inout Router) {
        router.page(.post, "/auth/passkey/options", env) { visit in
            guard let rp = relyingParty(visit) else { return Self.hostRefused }
            do {
                return try .json(["publicKey": try await passkeys.signInOptions(email: try visit.form.single("email"), rp: rp)])
            } catch let error as PasskeyError {
                return Self.error(error)
            }
        }
        router.page(.post, "/auth/passkey/sign-in", env, signIn)
        router.page(.post, "/account/security/passkeys/options", env) { visit in
            guard let signedIn = visit.signedIn else { return Self.signedOut }
            guard let rp = relyingParty(visit) else { return Self.hostRefused }
            do {
                let options = try await passkeys.registrationOptions(for: signedIn, rp: rp, rpName: RelyingParty.displayName)
                return try .json(["publicKey": options])
            } catch let error as PasskeyError {
                return Self.error(error)
            }
        }
        router.page(.post, "/account/security/passkeys", env) { visit in
            guard let signedIn = visit.signedIn else { return Self.signedOut }
            guard let rp = relyingParty(visit) else { return Self.hostRefused }
            do {
                _ = try await passkeys.register(
                    Array(try visit.field("credential").utf8), name: try visit.form.single("name"), for: signedIn, rp: rp,
                    request: visit.request)
            } catch let error as PasskeyError {
                return Self.error(error)
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
            try await passkeys.delete(id: id, of: signedIn, request: visit.request)
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
            var response = Self.error(error)
            if case .rateLimited(let wait) = error { response = response.retrying(after: wait) }
            return response
        case .signedIn(let session):
            var response = try Response.json(["redirect": PasswordlessPages.landing(visit, redirect)])
            try await env.sessions.start(session, replacing: visit.signedIn, request: visit.request, response: &response)
            env.csrf.rotate(in: &response, secure: env.configuration.usesTLS)
            return response
        }
    }

    /// The security page's passkey section: the list, or why there is none.
    func section(_ signedIn: SignedIn) async throws -> [String: Any] {
        guard passkeys.available else { return ["supported": false] }
        let list = try await passkeys.list(of: signedIn)
        return [
            "supported": true, "impersonating": signedIn.session.impersonator != nil,
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

    static func error(_ error: PasskeyError) -> Response {
        .json(raw: errorBody(code: error.reason, message: error.message, status: error.status), status: error.status)
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
