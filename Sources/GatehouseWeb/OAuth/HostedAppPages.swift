import Accounts
import Foundation
import HTTPServer

/// The app flow's own routes: `/auth/app/return` (where every sign-in made for an app ends),
/// `POST /auth/app/continue` ("Continue as …" on the hosted page) and `/auth/app-theme.css` (an
/// app's accent colour as the stylesheet the hosted page links; no inline styles under the CSP).
struct HostedAppPages: Sendable {
    let feature: OAuthFeature
    var env: PageEnvironment { feature.env }

    func register(on router: inout Router) {
        router.page(.get, AppFlow.returnPath, env, returnToApp)
        router.page(.post, "/auth/app/continue", env, continueAs)
        router.on(.get, "/auth/app-theme.css") { request, _ in
            let theme = try request.query.single("accent").flatMap { AppTheme(accent: "#" + $0) }
            var response = Response(status: theme == nil ? 404 : 200, body: Array((theme?.stylesheet ?? "").utf8))
            response.headers.replaceOrAdd("Content-Type", "text/css; charset=utf-8")
            // The colour is in the URL, so the sheet for it never changes.
            if theme != nil { response.headers.replaceOrAdd("Cache-Control", "public, max-age=86400") }
            return response
        }
    }

    /// Hands the app its code for the sign-in just made in this browser. The callback is checked
    /// against the app's registered URLs now, not when the flow began; a session that was already
    /// there before the flow goes to the hosted page's "Continue as …" instead.
    private func returnToApp(_ visit: Visit) async throws -> Response {
        let secure = env.configuration.usesTLS
        guard let ticket = feature.appFlow.opened(visit.request.cookies[AppFlow.cookieName], now: env.clock()) else {
            var response = Response.redirect(to: visit.user == nil ? "/auth/sign-in" : "/account")
            AppFlow.forget(in: &response, secure: secure)
            return response
        }
        let app: AppSignInRequest
        do {
            app = try await AppSignInRequest.parse(Parameters(ticket.request.queryItems), registry: feature.registry)
        } catch let refusal as AppSignInRequest.Refusal {
            var response = env.renderer.errorPage(
                status: 400, heading: "This sign-in request was refused", message: refusal.message)
            AppFlow.forget(in: &response, secure: secure)
            return response
        }
        let hostedPage = URLQuery.path("/auth/sign-in", app.queryItems)
        guard let signedIn = visit.signedIn, signedIn.session.createdAt >= ticket.started.addingTimeInterval(-1) else {
            return .redirect(to: hostedPage)
        }
        let name = try await AppSignInRequest.registered(app, registry: feature.registry)?.name ?? "the app"
        let callback = try await HostedSignIn(feature: feature).completion(
            continuing: signedIn, request: app, httpRequest: visit.request)
        // A page, not a redirect: this request may end a chain of redirects after a form post on a
        // page whose `form-action` does not name the app; the page's script follows the link.
        var response = env.renderer.page(
            .message,
            visit.context(
                title: "Back to \(name)",
                [
                    "heading": "You're signed in", "message": "Taking you back to \(name)…",
                    "actionURL": callback, "actionLabel": "Continue to \(name)", "follow": true
                ]))
        AppFlow.forget(in: &response, secure: secure)
        return response
    }

    /// "Continue as …": the person already signed in to Gatehouse chose to give the app this account.
    private func continueAs(_ visit: Visit) async throws -> Response {
        let app: AppSignInRequest
        do {
            app = try await AppSignInRequest.parse(visit.form, registry: feature.registry)
        } catch let refusal as AppSignInRequest.Refusal {
            return env.renderer.errorPage(status: 400, heading: "This sign-in request was refused", message: refusal.message)
        }
        guard let signedIn = visit.signedIn else { return .redirect(to: URLQuery.path("/auth/sign-in", app.queryItems)) }
        var response = try await HostedSignIn(feature: feature).redirect(
            continuing: signedIn, request: app, httpRequest: visit.request)
        AppFlow.forget(in: &response, secure: env.configuration.usesTLS)
        return response
    }
}
