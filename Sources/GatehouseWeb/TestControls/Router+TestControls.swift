import Accounts
import HTTPServer

extension Router {
    /// A test control under `/_/api/test/`: it answers where the test controls do (`TestControls`,
    /// 403 elsewhere), to a superuser's admin-API token or a Descope management key
    /// (`Authorization: Bearer <projectId>:<managementKey>`, as Descope's management API takes
    /// it), and 401 to anyone else; in Gatehouse's JSON envelope.
    mutating func testControl(
        _ method: HTTPMethod, _ path: String, _ env: PageEnvironment,
        _ handler: @escaping @Sendable (Request, TestControlCaller) async throws -> Response
    ) {
        on(method, path) { request, _ in
            guard env.configuration.testControls.admits(request) else {
                return APIError.response(status: 403, code: "FORBIDDEN", message: TestControls.refusal)
            }
            guard let caller = await TestControls.caller(of: request, env) else {
                return APIError.response(
                    status: 401, code: "UNAUTHORIZED",
                    message: "Send a superuser token (POST /_/api/auth) or <projectId>:<managementKey> as Authorization: Bearer")
            }
            return try await handler(request, caller)
        }
    }
}

extension TestControls {
    /// Who sends `request`: a superuser's admin-API token, else a live management key of one of
    /// this server's Descope projects; nil for neither.
    static func caller(of request: Request, _ env: PageEnvironment) async -> TestControlCaller? {
        if let staff = await env.console.fromBearer(request) { return .superuser(staff) }
        guard case (_, let secret?)? = try? DescopeProject(ids: env.configuration.descopeProjectIDs).caller(request),
            let key = try? await ManagementKeys(env: env.accounts).key(for: secret)
        else { return nil }
        return .managementKey(key)
    }
}
