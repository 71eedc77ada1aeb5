import Foundation
import HTTPServer

/// The Rownd Hub Gatehouse serves at `--rownd-hub-path`, so an app sets `Rownd.config.baseUrl` to
/// `http://HOST:PORT/rownd-hub`: the SDK loads `{baseUrl}/mobile_app?config=…&apiDomain=…` in its
/// web view, and the page (`rownd-hub.mustache`, `rownd-hub.js`) signs in by email code through
/// this server's own FDI, then posts the session to the SDK's native handler.
struct RowndHubPage: Sendable {
    let fdi: SuperTokensFDI

    func register(on router: inout Router) {
        let hub = fdi.env.configuration.rowndHubPath
        for path in [hub, hub + "/mobile_app"] {
            router.on(.get, path) { _, _ in
                fdi.env.renderer.page(
                    .rowndHub,
                    [
                        "title": "Sign in", "assetVersion": fdi.env.configuration.assetVersion,
                        "apiBasePath": fdi.basePath, "guests": fdi.env.accounts.offersGuests
                    ])
            }
        }
    }
}
