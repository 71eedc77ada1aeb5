import Accounts
import Foundation
import HTTPServer
import Secrets
import ServerSeam

extension Router {
    /// Registers an HTML page handler: gives every visitor a CSRF secret cookie, refuses POSTs
    /// without a matching `_csrf` token or from another site, and looks up the browser session.
    mutating func page(
        _ method: HTTPMethod, _ path: String, _ env: PageEnvironment,
        _ handler: @escaping @Sendable (Visit) async throws -> Response
    ) {
        on(method, path) { request, parameters in
            let existingSeed = request.cookies[CSRFGuard.cookieName].flatMap { $0.isEmpty ? nil : $0 }
            let seed = existingSeed ?? SecureRandom.token()
            var form = Parameters()
            if method == .post {
                form = try request.form()
                guard try env.csrf.accepts(request, form: form) else {
                    return env.renderer.errorPage(
                        status: 403, heading: "This form has expired",
                        message:
                            "Gatehouse could not confirm this request came from its own page. Go back, reload the page and try again."
                    )
                }
            }
            let visit = Visit(
                request: request, parameters: parameters, form: form,
                csrfToken: env.csrf.token(forSeed: seed),
                signedIn: await env.sessions.current(request),
                assetVersion: env.configuration.assetVersion,
                appBrand: await env.appFlowBrands?.brand(for: request))
            // Mails asked for inside an app's flow go out in the app's name (issue 49, item 4).
            var response: Response
            do {
                response = try await MailBrand.$current.withValue(visit.appBrand?.app.mailBrand ?? .gatehouse) {
                    try await handler(visit)
                }
            } catch let refusal as ImpersonationRefusal {
                // An act an impersonation may not do is refused inside the person's pages, under
                // the banner that says whose they are and how to stop (issue 49, item 5).
                response = env.renderer.errorPage(
                    visit, status: refusal.status, title: "Not while impersonating", heading: "Not while impersonating",
                    message: refusal.message)
            }
            // The app's pages keep the app's policy (its logo's host, its callback), unless the
            // page set its own.
            if let policy = visit.appBrand?.contentSecurityPolicy, response.headers["Content-Security-Policy"] == nil {
                response.headers.replaceOrAdd("Content-Security-Policy", policy)
            }
            if existingSeed == nil, !response.setsCookie(named: CSRFGuard.cookieName) {
                response.setCookie(env.csrf.cookie(seed: seed, secure: env.configuration.usesTLS))
            }
            return response
        }
    }
}

extension Response {
    /// True when this response already sets the named cookie (e.g. sign-in rotates the CSRF secret).
    func setsCookie(named name: String) -> Bool {
        headers.values(for: "Set-Cookie").contains { $0.hasPrefix(name + "=") }
    }
}
