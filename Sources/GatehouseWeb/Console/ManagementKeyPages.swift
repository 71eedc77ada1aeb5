import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `/_/management-keys`: the keys for Descope's management API (`ManagementKeys`) — listed,
/// created (the key shown once) and revoked by staff, each act audited.
struct ManagementKeyPages: Sendable {
    let env: PageEnvironment

    static let path = "/_/management-keys"

    func register(on router: inout Router) {
        router.consolePage(.get, Self.path, env) { visit, staff in
            try await render(visit, staff)
        }
        router.consolePage(.post, Self.path, env) { visit, staff in
            let name = try visit.field("name")
            do {
                let created = try await ManagementKeys(env: env.accounts).create(
                    name: name, actor: staff.superuser.id, ip: visit.request.remoteAddress, via: "console")
                return try await render(visit, staff, ["createdKey": ["name": created.key.name, "secret": created.secret]])
            } catch AuthError.validation(let fields) {
                let errors = ["create": Dictionary(fields.map { ($0.field, $0.message) }) { first, _ in first }]
                return try await render(visit, staff, ["errors": errors, "form": ["name": name]], status: 422)
            }
        }
        router.consolePage(.post, Self.path + "/:id/revoke", env) { visit, staff in
            let id = try visit.parameters.require("id")
            let revoked = try await ManagementKeys(env: env.accounts).revoke(
                id: id, actor: staff.superuser.id, ip: visit.request.remoteAddress, via: "console")
            return try await render(
                visit, staff, ["result": revoked ? "Key revoked: it no longer works." : "No live key \(id)."],
                status: revoked ? 200 : 404)
        }
    }

    private func render(_ visit: Visit, _ staff: Staff, _ extra: [String: Any] = [:], status: Int = 200) async throws
        -> Response
    {
        let keys = try await ManagementKeys(env: env.accounts).list()
        var page: [String: Any] = [
            "testMark": TestUsers.mark, "keysEmpty": keys.isEmpty,
            "keys": keys.map { key -> [String: Any] in
                [
                    "id": key.id, "name": key.name, "createdAt": DisplayDate.dateTime(key.createdAt), "live": key.isLive,
                    "revokedAt": key.revokedAt.map(DisplayDate.dateTime) ?? "",
                    "revokeURL": "\(Self.path)/\(key.id)/revoke"
                ]
            }
        ]
        page.merge(extra) { $1 }
        return env.renderer.page(
            .consoleManagementKeys,
            visit.consoleContext(
                title: "Management keys", staff: staff, nav: .testUsers, backendName: env.configuration.backendDescription,
                page),
            status: status)
    }
}
