import Accounts
import Foundation
import HTTPServer

/// The built-in receiving bins: `POST /_/webhooks/bin/{name}` takes a webhook (open where the
/// dev mailbox is: on loopback), and the console page `GET /_/webhooks/bin/{name}` shows what
/// arrived, newest first, each with its signature checked and the page refreshed every 5 s.
/// Registered before `WebhookConsolePages`, whose `/_/webhooks/{id}/{act}` would take the POST.
struct WebhookBinPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.on(.post, "/_/webhooks/bin/:name") { request, parameters in
            guard env.configuration.mailboxIsOpen else {
                return APIError.response(
                    status: 403, code: "FORBIDDEN",
                    message: "Webhook bins take requests only while Gatehouse listens on loopback.")
            }
            let name = try Self.name(parameters)
            try await WebhookEndpoints.receive(
                in: env.accounts, bin: name, headers: request.headers.map { ($0.0, $0.1) }, body: request.body,
                now: Date())
            return .empty(status: 204)
        }
        router.consolePage(.get, "/_/webhooks/bin/:name", env) { visit, staff in
            let name = try Self.name(visit.parameters)
            let arrivals = await WebhookEndpoints(env: env.accounts, staff: staff, via: "console").arrivals(in: name)
            var response = env.renderer.page(
                .consoleWebhookBin,
                visit.consoleContext(
                    title: "Webhook bin \(name)", staff: staff, nav: .webhooks, backendName: env.configuration.backendDescription,
                    [
                        "name": name,
                        "url": "http://\(visit.request.headers["Host"] ?? "127.0.0.1")" + WebhookEndpoints.binPath(name),
                        "arrivalsEmpty": arrivals.isEmpty,
                        "arrivals": arrivals.map { arrival in
                            [
                                "at": DisplayDate.dateTime(arrival.at), "type": arrival.type ?? "(not an event)",
                                "verified": arrival.signature == "verified", "mismatch": arrival.signature == "mismatch",
                                "headers": arrival.headers.map { "\($0): \($1)" }.joined(separator: "\n"), "body": arrival.body
                            ] as [String: Any]
                        }
                    ]))
            response.headers.replaceOrAdd("Refresh", "5")
            return response
        }
    }

    /// The bin's name: letters, digits, `-` and `_`, up to 64.
    static func name(_ parameters: PathParameters) throws -> String {
        let name = try parameters.require("name")
        guard (1...64).contains(name.count),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw APIFailure.invalid("A bin's name is letters, digits, - and _, up to 64.") }
        return name
    }
}
