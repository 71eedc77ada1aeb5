import Accounts
import AuthCore
import Foundation
import HTTPServer

/// Test users through Descope's management API: `user/create/test` answers `{"user": …}`,
/// `v2 user/search/test` `{"users": […]}` (filtered by `emails`/`loginIds` and `text`, paged by
/// `limit`/`page`), and `user/test/delete/all` deletes every test user and no one else (`TestUsers`).
struct DescopeManagementUserRoutes: Sendable {
    let management: DescopeManagement

    func register(on router: inout Router) {
        management.on(&router, .post, "/v1/mgmt/user/create/test") { call, key in
            let email = try call.text("email").flatMap { $0.isEmpty ? nil : $0 } ?? call.loginID()
            guard EmailAddress.normalize(email) == EmailAddress.normalize(try call.loginID()) else {
                throw DescopeAnswer(
                    400, DescopeCode.invalidArguments, "Invalid arguments", "Gatehouse's login id is the email address")
            }
            let name = try call.text("displayName").flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
            let verified = call.body["verifiedEmail"] == .bool(true)
            let user = try await users(key).create(email: email, name: name, verified: verified, request: call.request)
            return DescopeManagement.wrapped("user", DescopeUser(user, amr: [], test: true).serialized)
        }
        management.on(&router, .post, "/v2/mgmt/user/search/test") { call, key in
            let emails = try strings("emails", call) + strings("loginIds", call)
            let limit = try number("limit", call)
            let page = try number("page", call)
            guard limit >= 0, limit <= 500, page >= 0 else {
                throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "limit is 0…500, page from 0")
            }
            let text = try call.text("text").flatMap { $0.isEmpty ? nil : $0 }
            let found = try await users(key).search(
                emails: emails, text: text, limit: limit, page: page, request: call.request)
            var raw: [UInt8] = [UInt8(ascii: "[")]
            for (index, user) in found.enumerated() {
                if index > 0 { raw.append(UInt8(ascii: ",")) }
                raw += DescopeUser(user, amr: [], test: true).serialized
            }
            raw.append(UInt8(ascii: "]"))
            return DescopeManagement.wrapped("users", raw)
        }
        management.on(&router, .delete, "/v1/mgmt/user/test/delete/all") { call, key in
            _ = try await users(key).deleteAll(request: call.request)
            return .json(raw: "{}")
        }
    }

    private func users(_ key: ManagementKey) -> TestUsers {
        TestUsers(env: management.accounts, via: DescopeManagement.via, key: key)
    }

    /// A list of strings, empty when absent or null.
    private func strings(_ field: String, _ call: DescopeAPI.Call) throws(DescopeAnswer) -> [String] {
        switch call.body[field] {
        case nil, .null?: return []
        case .array(let values)?:
            return try values.map { value throws(DescopeAnswer) in
                guard let text = value.stringValue else { throw invalid(field, "a list of strings") }
                return text
            }
        default: throw invalid(field, "a list of strings")
        }
    }

    /// A whole number, 0 when absent or null.
    private func number(_ field: String, _ call: DescopeAPI.Call) throws(DescopeAnswer) -> Int {
        switch call.body[field] {
        case nil, .null?: return 0
        case .number(let value)? where value.rounded() == value && abs(value) < 1e9: return Int(value)
        default: throw invalid(field, "a whole number")
        }
    }

    private func invalid(_ field: String, _ kind: String) -> DescopeAnswer {
        DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "\(field) must be \(kind)")
    }
}
