import Accounts
import Foundation
import HTTPServer

/// The app this browser is signing in to (`AppFlow`'s pending `gh_app` ticket), for every page on
/// the way — verification, codes and links, forgot password, second step — so they are the app's,
/// in its colours and under its logo, as the hosted page itself was (the layout reads `brand`).
struct AppFlowBrand: Sendable {
    let app: RegisteredApp
    let request: AppSignInRequest

    /// The app's CSP for its pages: its callback in `form-action`, an `http://localhost` logo in
    /// `img-src` (`HostedSignIn.pageCSP`).
    var contentSecurityPolicy: String? { HostedSignIn.pageCSP(for: request, logoURL: app.logoURL) }
}

/// Opens a request's pending app flow and finds its registered app.
struct AppFlowBrands: Sendable {
    let appFlow: AppFlow
    let registry: ProviderRegistry
    let clock: @Sendable () -> Date

    /// The brand for `request`'s pages: nil without a flow, with a ticket that does not open, or
    /// for an app no longer registered.
    func brand(for request: Request) async -> AppFlowBrand? {
        guard AppFlow.isPending(request),
            let ticket = appFlow.opened(request.cookies[AppFlow.cookieName], now: clock()),
            let app = try? await AppSignInRequest.registered(ticket.request, registry: registry)
        else { return nil }
        return AppFlowBrand(app: app, request: ticket.request)
    }
}
