import Accounts
import Foundation
import HTTPServer

/// The console's webhooks: `/_/webhooks` lists the endpoints and adds one; `/_/webhooks/{id}` is
/// the inspector — the endpoint's settings and secret, its deliveries with each try's request and
/// response, replay, a test event of any type, and the edits (enable, rotate, delete).
struct WebhookConsolePages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/webhooks", env) { visit, staff in try await list(visit, staff) }
        router.consolePage(.post, "/_/webhooks", env) { visit, staff in
            let url = (try visit.form.single("url") ?? "").trimmingCharacters(in: .whitespaces)
            let events = (try visit.form.single("events") ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(
                String.init)
            do {
                let (endpoint, _) = try await operations(staff).add(
                    url: url, events: events, svixHeaders: try visit.form.single("svix") == "on")
                return .redirect(to: "/_/webhooks/\(endpoint.id)")
            } catch let refusal as WebhookEndpointError {
                var errors = FormErrors()
                errors.add("url", refusal.message)
                return try await list(visit, staff, errors: errors, form: ["url": url, "events": events.joined(separator: ", ")])
            }
        }
        router.consolePage(.get, "/_/webhooks/:id", env) { visit, staff in
            try await WebhookInspectorPage(env: env, visit: visit, staff: staff).render()
        }
        router.consolePage(.post, "/_/webhooks/:id/:act", env) { visit, staff in
            try await WebhookInspectorPage(env: env, visit: visit, staff: staff).act()
        }
        router.consolePage(.post, "/_/webhooks/:id/deliveries/:delivery/replay", env) { visit, staff in
            let id = try visit.parameters.require("id")
            try await operations(staff).replay(try visit.parameters.require("delivery", as: Int64.self), endpoint: id)
            return .redirect(to: "/_/webhooks/\(id)")
        }
    }

    private func operations(_ staff: Staff) -> WebhookEndpoints {
        WebhookEndpoints(env: env.accounts, staff: staff, via: "console")
    }

    private func list(_ visit: Visit, _ staff: Staff, errors: FormErrors = FormErrors(), form: [String: String] = [:])
        async throws -> Response
    {
        let endpoints = try await operations(staff).all()
        let rows: [[String: Any]] = endpoints.map { endpoint in
            [
                "id": endpoint.id, "url": endpoint.url, "events": endpoint.events?.joined(separator: ", ") ?? "Every event",
                "enabled": endpoint.enabled, "failing": endpoint.failingSince != nil
            ]
        }
        return env.renderer.page(
            .consoleWebhooks,
            visit.consoleContext(
                title: "Webhooks", staff: staff, nav: .webhooks, backendName: env.configuration.backendDescription,
                [
                    "endpoints": rows, "endpointsEmpty": rows.isEmpty, "form": form,
                    "eventTypes": WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")
                ].merging(errors.context) { $1 }), status: errors.isEmpty ? 200 : 422)
    }
}
