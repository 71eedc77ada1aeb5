import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The Rownd SDK's plugin routes under `{apiBasePath}/plugin/rownd/` (supertokens-rownd's server
/// side), answered by Gatehouse itself: the app's configuration, signing out everywhere, and what
/// Gatehouse cannot do, refused in the plugin's own words — guests (Gatehouse has no anonymous
/// accounts), a legacy Rownd token (its keys are Rownd's, online only) and the cross-device
/// confirmation bypass. The account's own routes are `RowndUserRoutes`.
struct RowndPluginRoutes: Sendable {
    static let base = "/plugin/rownd"

    let fdi: SuperTokensFDI
    var env: PageEnvironment { fdi.env }

    func register(on router: inout Router) {
        fdi.on(&router, .get, Self.base + "/app-config") { request in
            // Gatehouse is one app: any variant named is unknown, as the plugin answers with none configured.
            if let variant = try request.query.single("app_variant_id"), !variant.isEmpty {
                let body: [String: JSONValue] = [
                    "status": "ERROR", "reason": "UNKNOWN_APP_VARIANT",
                    "message": .string("Unknown Rownd app variant: \(variant)")
                ]
                return .json(raw: JSONValue.object(body).serialized, status: 400)
            }
            return .json(raw: await appConfig(request).json.serialized)
        }
        fdi.on(&router, .post, Self.base + "/signout") { request in
            let session = try await fdi.sessions.verified(request)
            _ = try await OwnSessions(env: env.accounts).signOutEverywhere(session.signedIn, request: request)
            return SuperTokensFDI.status("OK")
        }
        fdi.on(&router, .post, Self.base + "/guest") { request in
            let instant = (try? SuperTokensFDI.body(request))?["auth_level"]?.stringValue == "instant"
            return SuperTokensFDI.status("ERROR", ["message": .string("\(instant ? "Instant" : "Guest") sign-in is not enabled")])
        }
        fdi.on(&router, .post, Self.base + "/migrate", migrate)
        fdi.on(&router, .post, "/plugin/migrate-session", migrate)
        fdi.on(&router, .post, "/plugin/passwordless-cross-device-confirmation/validate") { _ in
            SuperTokensFDI.status("ERROR", ["bypass": .bool(false)])
        }
        RowndUserRoutes(fdi: fdi).register(on: &router)
        RowndHubPage(fdi: fdi).register(on: &router)
    }

    /// The app's configuration; `apiDomain` is the public URL, else the address the SDK reached
    /// Gatehouse by (an allow-listed host), which is what it was configured with.
    private func appConfig(_ request: Request) async -> RowndAppConfig {
        RowndAppConfig(
            apiDomain: env.configuration.publicBaseURL(reachedBy: request),
            apiBasePath: fdi.basePath.isEmpty ? "/" : fdi.basePath,
            waysIn: await RowndHubWaysIn(fdi: fdi))
    }

    /// A legacy Rownd session traded for a SuperTokens one: the token is Rownd's, signed with keys
    /// only Rownd's API publishes, so Gatehouse can verify none. Its answer is the plugin's for a
    /// token it cannot place: no token, a malformed one, or one whose key is unknown (401).
    private func migrate(_ request: Request) async throws -> Response {
        guard let header = request.headers["Authorization"], !header.isEmpty else {
            return Self.migrationRefused("TOKEN_MISSING", "Authorization token is required", stage: "request_parse")
        }
        let prefix = "bearer "
        let token = header.dropFirst(prefix.count)
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix,
            !token.contains(where: \.isWhitespace)
        else {
            return Self.migrationRefused("TOKEN_MALFORMED", "Authorization token is malformed", stage: "request_parse")
        }
        guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
            return Self.migrationRefused("TOKEN_MALFORMED", "Authorization token is malformed", stage: "token_validate")
        }
        return Self.migrationRefused("TOKEN_KID_UNKNOWN", "Authorization token key is unknown", stage: "token_validate")
    }

    /// The plugin's migration error: `{status: ERROR, code, reason, message, retryable, stage, operationId}`.
    static func migrationRefused(_ reason: String, _ message: String, stage: String) -> Response {
        let body: [String: JSONValue] = [
            "status": "ERROR", "code": .number(401), "reason": .string(reason), "message": .string(message),
            "retryable": .bool(false), "stage": .string(stage), "operationId": .string(UUID().uuidString.lowercased())
        ]
        return .json(raw: JSONValue.object(body).serialized, status: 401)
    }

    /// The plugin's refusal of a request: `{status: ERROR, code, message}` with `code` as the HTTP status.
    static func refused(_ code: Int, _ message: String) -> Response {
        let body: [String: JSONValue] = ["status": "ERROR", "code": .number(Double(code)), "message": .string(message)]
        return .json(raw: JSONValue.object(body).serialized, status: code)
    }
}
