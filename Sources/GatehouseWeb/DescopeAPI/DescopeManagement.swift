import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Descope's management API for test users (`/v1/mgmt/…`, `/v2/mgmt/…`), as the Python SDK's
/// management client calls it: every call names the project and a management key in
/// `Authorization: Bearer <projectId>:<managementKey>` (`ManagementKeys`), and every act is an
/// owner's in `Accounts` (`TestUsers`, `TestSignInSecrets`), answered in Descope's shape.
struct DescopeManagement: Sendable {
    let api: DescopeAPI
    var accounts: Accounts { api.env.accounts }

    /// Names this way in in the audit data.
    static let via = "descope-management"

    func register(on router: inout Router) {
        DescopeManagementUserRoutes(management: self).register(on: &router)
        DescopeManagementTestRoutes(management: self).register(on: &router)
        DescopeManagementAuthRoutes(management: self).register(on: &router)
    }

    /// A management route: where the test controls answer (`TestControls`, 403 elsewhere), then
    /// the project and a live key (Descope's 401 otherwise); DELETE routes have no body.
    func on(
        _ router: inout Router, _ method: HTTPMethod, _ path: String,
        _ handler: @escaping @Sendable (DescopeAPI.Call, ManagementKey) async throws -> Response
    ) {
        router.on(method, path) { request, _ in
            do {
                guard api.env.configuration.testControls.admits(request) else {
                    throw DescopeAnswer(403, DescopeCode.invalidRequest, "Forbidden", TestControls.refusal)
                }
                let (project, secret) = try api.project.caller(request)
                guard let secret, let key = try await ManagementKeys(env: accounts).key(for: secret) else {
                    throw DescopeAnswer(
                        401, DescopeCode.invalidRequest, "Unauthorized",
                        "Send Authorization: Bearer <projectId>:<managementKey> with a live management key")
                }
                let body = method == .delete ? [:] : try DescopeAPI.object(request)
                let call = DescopeAPI.Call(
                    request: request, project: project, refreshJwt: nil, body: body, started: api.env.clock())
                return try await handler(call, key)
            } catch let error as AuthError {
                return DescopeError.response(for: error)
            } catch let answer as DescopeAnswer {
                return answer.response
            }
        }
    }

    /// The link a mail would carry for `token`, opening `opening` on this server's public address
    /// (else the address the call reached it by, an allow-listed host).
    func address(of token: String, opening: LinkOpening, request: Request) -> String {
        let base = api.env.configuration.publicBaseURL(reachedBy: request)
        return opening.address(token: token) { base + $0 }
    }

    /// Refuses a `deliveryMethod` other than email (or embedded): Gatehouse has no phones.
    static func requireEmailDelivery(_ call: DescopeAPI.Call) throws(DescopeAnswer) {
        if let method = try call.text("deliveryMethod"), method != "email", method != "embedded" {
            throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "Gatehouse delivers by email only")
        }
    }

    /// `{"key": <raw JSON>}`: the users Descope's answers nest.
    static func wrapped(_ key: String, _ raw: [UInt8]) -> Response {
        .json(raw: Array("{\"\(key)\":".utf8) + raw + Array("}".utf8))
    }
}
