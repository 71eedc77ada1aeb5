import Accounts
import AuthCore
import Foundation
import HTTPServer

/// Gatehouse's own test controls under `/_/api/test/…`: each section registers its routes here
/// (one line each in `register`). Every route answers only where the test controls do
/// (`TestControls`), to a superuser's admin-API token or a management key
/// (`Authorization: Bearer <key>` or `Bearer <projectId>:<key>`), in the admin API's error shape.
struct TestControlsAPI: Sendable {
    let env: PageEnvironment

    /// Where the routes live.
    static let prefix = "/_/api/test"

    func register(on router: inout Router) {
        TestFaultsRoutes(api: self).register(on: &router)
        TestCodesRoutes(api: self).register(on: &router)
        TestResetRoutes(api: self).register(on: &router)
        TestRequestsRoutes(api: self).register(on: &router)
    }

    /// A test-control route at `prefix + path`: refused off the controls' network (403) and without
    /// a caller (401); a refused field answers 422 with every problem.
    func on(
        _ router: inout Router, _ method: HTTPMethod, _ path: String,
        _ handler: @escaping @Sendable (Request, PathParameters, TestControlCaller) async throws -> Response
    ) {
        router.on(method, Self.prefix + path) { request, parameters in
            guard env.configuration.testControls.admits(request) else {
                return APIError.response(status: 403, code: "FORBIDDEN", message: TestControls.refusal)
            }
            guard let caller = await caller(of: request) else {
                return APIError.response(
                    status: 401, code: "UNAUTHORIZED",
                    message: "Send a superuser token (POST /_/api/auth) or a management key as Authorization: Bearer TOKEN.")
            }
            do {
                return try await handler(request, parameters, caller)
            } catch AuthError.validation(let fields) {
                return try .json(
                    TestUsersAPI.Refused(message: "Nothing was changed: fix the fields named.", fields: fields), status: 422)
            }
        }
    }

    /// The superuser whose admin-API token this is, else the live management key it names.
    private func caller(of request: Request) async -> TestControlCaller? {
        if let staff = await env.console.fromBearer(request) { return .staff(staff) }
        guard let bearer = request.bearerToken else { return nil }
        let secret = bearer.split(separator: ":", maxSplits: 1).last.map(String.init) ?? bearer
        guard let key = try? await ManagementKeys(env: env.accounts).key(for: secret) else { return nil }
        return .key(key)
    }
}
