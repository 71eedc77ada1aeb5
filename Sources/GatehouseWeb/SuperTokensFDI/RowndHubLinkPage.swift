import Foundation
import HTTPServer

/// `/account/login?preAuthSessionId=…&tenantId=public#linkCode`: where the magic link the Hub mails
/// opens — at the root, as the Rownd SDK maps its deep link `{scheme}://account/login…` onto the
/// Hub's origin with the Hub's path replaced (`SmartLinks.hubUrl`). Opened on the phone, the page
/// hands on to the app (`RowndAppLinks.appLink`, the configured scheme only); opened in the SDK's
/// web view (its native handler is there), it spends the link through the FDI's `consume` and
/// posts the SDK's `authentication` message, as the sheet does.
struct RowndHubLinkPage: Sendable {
    let fdi: SuperTokensFDI

    func register(on router: inout Router) {
        router.on(.get, RowndAppLinks.loginPath) { request, _ in
            guard let flow = try request.query.single("preAuthSessionId"), !flow.isEmpty, flow.count <= 200 else {
                return fdi.env.renderer.errorPage(
                    status: 400, heading: "This sign-in link is incomplete",
                    message: "Open the link from the email again, or ask the app for a new one.")
            }
            let links = RowndAppLinks(configuration: fdi.env.configuration)
            return fdi.env.renderer.page(
                .rowndHubLink,
                [
                    "title": "Finish signing in", "assetVersion": fdi.env.configuration.assetVersion,
                    "apiBasePath": fdi.basePath, "preAuthSessionId": flow,
                    "appLink": links.appLink(preAuthSessionID: flow, tenantID: "public")
                ])
        }
    }
}
