import Accounts
import AuthCore
import Foundation
import HTTPServer

/// Webhook endpoints as JSON under `/_/api/webhooks`: add one (`POST {url, events?}`, answered
/// with its `whsec_` secret), edit it, rotate its secret, remove it; its deliveries, their tries,
/// replay and test events. Every call needs a superuser bearer token; errors use Gatehouse's envelope.
struct WebhooksAPI: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.adminAPI(.get, "/_/api/webhooks", env) { _, _, staff in
            try .json(Items(items: try await operations(staff).all().map { EndpointBody($0) }))
        }
        router.adminAPI(.post, "/_/api/webhooks", env) { request, _, staff in
            struct Add: Decodable {
                var url: String
                var events: [String]?
                var svixHeaders: Bool?
                var headers: [String: String]?
            }
            let body: Add = try request.decodeJSON()
            let (endpoint, secret) = try await operations(staff).add(
                url: body.url, events: body.events, svixHeaders: body.svixHeaders ?? false, headers: body.headers ?? [:])
            var response = try Response.json(EndpointBody(endpoint, secret: secret), status: 201)
            response.headers.replaceOrAdd("Location", "/_/api/webhooks/\(endpoint.id)")
            return response
        }
        router.adminAPI(.get, "/_/api/webhooks/event-types", env) { _, _, _ in
            try .json(Items(items: WebhookEventType.allCases.map(\.rawValue)))
        }
        router.adminAPI(.get, "/_/api/webhooks/:id", env) { _, parameters, staff in
            try .json(EndpointBody(try await operations(staff).endpoint(try parameters.require("id"))))
        }
        router.adminAPI(.patch, "/_/api/webhooks/:id", env) { request, parameters, staff in
            let body: EndpointPatch = try request.decodeJSON()
            return try .json(EndpointBody(try await operations(staff).edit(try parameters.require("id"), body.edit)))
        }
        router.adminAPI(.delete, "/_/api/webhooks/:id", env) { _, parameters, staff in
            try await operations(staff).remove(try parameters.require("id"))
            return .empty(status: 204)
        }
        router.adminAPI(.get, "/_/api/webhooks/:id/secret", env) { _, parameters, staff in
            try .json(["secret": try await operations(staff).secret(of: try parameters.require("id"))])
        }
        router.adminAPI(.post, "/_/api/webhooks/:id/rotate-secret", env) { _, parameters, staff in
            let (endpoint, secret) = try await operations(staff).rotateSecret(of: try parameters.require("id"))
            return try .json(EndpointBody(endpoint, secret: secret))
        }
        router.adminAPI(.post, "/_/api/webhooks/:id/test", env) { request, parameters, staff in
            struct Test: Decodable { var type: String? }
            let body: Test = try request.decodeJSON()
            try await operations(staff).sendTest(
                type: body.type ?? WebhookEventType.userCreated.rawValue, to: try parameters.require("id"))
            return .empty(status: 202)
        }
        router.adminAPI(.get, "/_/api/webhooks/:id/deliveries", env) { _, parameters, staff in
            let deliveries = try await operations(staff).deliveries(of: try parameters.require("id"))
            return try .json(Items(items: deliveries.map(DeliveryBody.init)))
        }
        router.adminAPI(.get, "/_/api/webhooks/:id/deliveries/:delivery/attempts", env) { _, parameters, staff in
            let attempts = try await operations(staff).attempts(
                of: try parameters.require("delivery", as: Int64.self), endpoint: try parameters.require("id"))
            return try .json(Items(items: attempts.map(AttemptBody.init)))
        }
        router.adminAPI(.post, "/_/api/webhooks/:id/deliveries/:delivery/replay", env) { _, parameters, staff in
            try await operations(staff).replay(
                try parameters.require("delivery", as: Int64.self), endpoint: try parameters.require("id"))
            return .empty(status: 202)
        }
    }

    private func operations(_ staff: Staff) -> WebhookEndpoints {
        WebhookEndpoints(env: env.accounts, staff: staff, via: "api")
    }
}

/// A list answer, `{items: [...]}`.
private struct Items<Item: Encodable>: Encodable {
    var items: [Item]
}
