import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `POST /_/api/test/faults` puts a fault in the way of requests (`InjectedFault`), `GET` lists
/// those in force, `DELETE /_/api/test/faults/{id}` takes one away.
struct TestFaultsRoutes: Sendable {
    let api: TestControlsAPI

    /// What a caller sends: `path` and a `status`, a `delayMs`, or both.
    struct Body: Decodable {
        var method: String?
        var path: String
        var match: String?
        var status: Int?
        var body: JSONValue?
        var delayMs: Int?
        var count: Int?
    }

    /// A fault as listed.
    struct Listed: Encodable {
        var id: String
        var method: String
        var path: String
        var match: String
        var status: Int?
        var body: JSONValue?
        var delayMs: Int
        var remaining: Int
        var createdAt: Date

        init(_ fault: InjectedFault) {
            (id, method, path, match) = (fault.id, fault.method?.rawValue ?? "*", fault.path, fault.match.rawValue)
            (status, body, delayMs, remaining, createdAt) = (
                fault.status, fault.body, fault.delayMs, fault.remaining, fault.createdAt
            )
        }
    }

    struct Page: Encodable { var items: [Listed] }

    func register(on router: inout Router) {
        api.on(&router, .post, "/faults") { request, _, caller in
            let body: Body = try request.decodeJSON()
            let fault = try await TestFaults(env: api.env.accounts, caller: caller).add(
                TestFaults.Spec(
                    method: body.method, path: body.path, match: body.match, status: body.status, body: body.body,
                    delayMs: body.delayMs, count: body.count), request: request)
            return try .json(Listed(fault), status: 201)
        }
        api.on(&router, .get, "/faults") { _, _, caller in
            try .json(Page(items: TestFaults(env: api.env.accounts, caller: caller).list().map(Listed.init)))
        }
        api.on(&router, .delete, "/faults/:id") { request, parameters, caller in
            let id = try parameters.require("id")
            guard await TestFaults(env: api.env.accounts, caller: caller).remove(id: id, request: request) else {
                return APIError.response(status: 404, code: "NOT_FOUND", message: "There is no fault \(id) in force.")
            }
            return .empty()
        }
    }
}
