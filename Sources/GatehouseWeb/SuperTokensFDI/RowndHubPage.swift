import Foundation
import HTTPServer

/// The Rownd Hub Gatehouse serves at `--rownd-hub-path`, so an app sets `Rownd.config.baseUrl` to
/// `http://HOST:PORT/rownd-hub`: the SDK loads `{baseUrl}/mobile_app?config=…&apiDomain=…` in its
/// web view, and the page (`rownd-hub.mustache`, `rownd-hub.js`) signs in through this server's own
/// FDI — a mailed code or link, Google or Apple through the SDK's native sign-in, a test-mode
/// provider in the web view (`RowndHubWaysIn`) — then posts the session to the SDK's native
/// handler. `{hub}/callback` is where a provider round trip comes back to; `{hub}/continue` is the
/// post-sign-in redirect, only to where `RowndAppLinks` allows. The magic link's own page is
/// `RowndHubLinkPage`.
struct RowndHubPage: Sendable {
    let fdi: SuperTokensFDI
    private var hub: String { fdi.env.configuration.rowndHubPath }

    func register(on router: inout Router) {
        for path in [hub, hub + "/mobile_app"] {
            router.on(.get, path) { _, _ in await sheet(callback: false) }
        }
        router.on(.get, hub + "/callback") { _, _ in await sheet(callback: true) }
        router.on(.get, hub + "/continue") { request, _ in
            guard let target = try request.query.single("to"),
                RowndAppLinks(configuration: fdi.env.configuration).allowsRedirect(target)
            else {
                return fdi.env.renderer.errorPage(
                    status: 400, heading: "This app does not continue there",
                    message:
                        "The address this sign-in was to continue to is not one the app is set up for, so Gatehouse does not open it."
                )
            }
            return .redirect(to: target)
        }
        RowndHubLinkPage(fdi: fdi).register(on: &router)
    }

    /// The sign-in sheet; on the callback, the same page finishing a provider's round trip.
    private func sheet(callback: Bool) async -> Response {
        let ways = await RowndHubWaysIn(fdi: fdi)
        var providers: [[String: Any]] = []
        if ways.google != nil { providers.append(["name": "google", "label": "Google", "native": true]) }
        if ways.apple != nil { providers.append(["name": "apple", "label": "Apple", "native": true]) }
        providers += ways.roundTrips.map { ["name": $0.name, "label": $0.label + " (test)", "native": false] }
        return fdi.env.renderer.page(
            .rowndHub,
            [
                "title": "Sign in", "assetVersion": fdi.env.configuration.assetVersion, "apiBasePath": fdi.basePath,
                "hubPath": hub, "callbackURL": fdi.oauth?.rowndHubCallbackURL ?? "", "callback": callback,
                "emailCode": ways.emailCode, "magicLink": ways.magicLink, "email": ways.email, "providers": providers
            ])
    }
}
