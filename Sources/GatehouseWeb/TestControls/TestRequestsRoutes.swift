import Accounts
import Foundation
import HTTPServer
import ServerSeam

/// `GET /_/api/test/requests[?limit=&id=]` — the request ledger (`RequestLedger`), newest first.
struct TestRequestsRoutes: Sendable {
    let api: TestControlsAPI

    struct Effect: Encodable {
        var kind: String
        var detail: String
    }

    struct Listed: Encodable {
        var id: String
        var at: Date
        var method: String
        var path: String
        var route: String?
        var wayIn: String
        var status: Int
        var milliseconds: Double
        var fault: String?
        var caused: [Effect]

        init(_ entry: RequestLedger.Entry) {
            (id, at, method, path, route, wayIn) = (entry.id, entry.at, entry.method, entry.path, entry.route, entry.wayIn)
            (status, milliseconds, fault) = (entry.status, (entry.milliseconds * 10).rounded() / 10, entry.fault)
            caused = entry.effects.map { Effect(kind: $0.kind, detail: $0.detail) }
        }
    }

    struct Page: Encodable { var items: [Listed] }

    func register(on router: inout Router) {
        api.on(&router, .get, "/requests") { request, _, caller in
            let limit = try request.query.single("limit").map { Int($0) ?? 0 } ?? 100
            guard (1...RequestLedger.capacity).contains(limit) else {
                return APIError.response(
                    status: 400, code: "BAD_REQUEST", message: "limit must be 1 to \(RequestLedger.capacity).")
            }
            let entries = await TestRequests(env: api.env.accounts, caller: caller)
                .list(limit: limit, id: try request.query.single("id"), request: request)
            return try .json(Page(items: entries.map(Listed.init)))
        }
    }
}
