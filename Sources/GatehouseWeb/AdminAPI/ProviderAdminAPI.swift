import Accounts
import Foundation
import HTTPServer
import OAuth
import Secrets

/// `/_/api/providers` and `/_/api/apps`: configure sign-in providers and register apps for the
/// hosted page. Secrets are accepted but never returned. Like every admin endpoint they take a
/// superuser token only: no loopback exemption, since a DNS-rebinding page is a loopback caller too.
struct ProviderAdminAPI: Sendable {
    let feature: OAuthFeature

    func register(on router: inout Router) {
        router.adminAPI(.post, "/_/api/providers", feature.env) { request, _, staff in
            let configuration = try request.decodeJSON(ProviderBody.self).configuration
            let problems = configuration.problems()
            guard problems.isEmpty else { return try Self.invalid(problems) }
            let created = try await operations(staff, request).save(configuration)
            return try .json(
                ProviderSummary(configuration, hasSecret: configuration.clientSecret?.isEmpty == false),
                status: created ? 201 : 200)
        }
        router.adminAPI(.get, "/_/api/providers", feature.env) { request, _, staff in
            try .json(
                try await operations(staff, request).providers().map { ProviderSummary($0, hasSecret: $0.clientSecret != nil) })
        }
        router.adminAPI(.post, "/_/api/providers/:name/mode", feature.env) { request, parameters, staff in
            guard let mode = try request.decodeJSON([String: String].self)["mode"].flatMap(ProviderMode.init(rawValue:)) else {
                return try Self.invalid(["mode": "Use live or test."])
            }
            let name = try parameters.require("name")
            guard try await operations(staff, request).setMode(mode, of: name) else {
                throw APIFailure.notFound("No provider called \(name).")
            }
            return .empty()
        }
        router.adminAPI(.delete, "/_/api/providers/:name", feature.env) { request, parameters, staff in
            let name = try parameters.require("name")
            guard try await operations(staff, request).deleteProvider(name) else {
                throw APIFailure.notFound("No provider called \(name).")
            }
            return .empty()
        }
        router.adminAPI(.post, "/_/api/apps", feature.env) { request, _, staff in
            let body = try request.decodeJSON(AppBody.self)
            let id = body.resolvedID
            let problems = body.problems(id: id)
            guard problems.isEmpty else { return try Self.invalid(problems) }
            let app = body.record(id: id, at: feature.env.clock())
            let created = try await operations(staff, request).register(app)
            return try .json(AppSummary(app), status: created ? 201 : 200)
        }
        router.adminAPI(.get, "/_/api/apps", feature.env) { request, _, staff in
            try .json(try await operations(staff, request).apps().map(AppSummary.init))
        }
        router.adminAPI(.delete, "/_/api/apps/:id", feature.env) { request, parameters, staff in
            guard try await operations(staff, request).deleteApp(try parameters.require("id")) else {
                throw APIFailure.notFound("No such app.")
            }
            return .empty()
        }
    }

    private func operations(_ staff: Staff, _ request: Request) -> ProviderOperations {
        ProviderOperations(env: feature.env.accounts, registry: feature.registry, staff: staff, request: request, via: "api")
    }

    static func invalid(_ problems: [String: String]) throws -> Response {
        try .json(
            InvalidBody(error: "INVALID_INPUT", message: "Some fields need attention.", status: 400, fields: problems),
            status: 400)
    }
}

private struct InvalidBody: Encodable {
    var error: String
    var message: String
    var status: Int
    var fields: [String: String]
}

/// A provider as the API shows it: everything but the secret.
struct ProviderSummary: Encodable {
    var name, type, mode, displayName, clientId: String
    var issuer, authorizationURL, tokenURL, userInfoURL, jwksURL: String?
    var scopes: [String]
    var hasClientSecret: Bool

    init(_ configuration: ProviderConfiguration, hasSecret: Bool) {
        name = configuration.name
        type = configuration.type.rawValue
        mode = configuration.mode.rawValue
        displayName = configuration.label
        clientId = configuration.clientId
        issuer = configuration.issuer
        authorizationURL = configuration.authorizationURL
        tokenURL = configuration.tokenURL
        userInfoURL = configuration.userInfoURL
        jwksURL = configuration.jwksURL
        scopes = configuration.scopes
        hasClientSecret = hasSecret
    }
}

struct AppSummary: Encodable {
    var id, name: String
    var callbackURLs: [String]
    var legacyCallback: Bool
    /// Legacy mode puts an access token in the callback URL: browser history, logs and referrers see it.
    var unsafe: Bool
    /// The hosted page's branding; left out when not set.
    var logoURL, accentColor, termsURL, privacyURL: String?

    init(_ app: RegisteredApp) {
        id = app.id
        name = app.name
        callbackURLs = app.callbackURLs
        legacyCallback = app.legacyCallback
        unsafe = app.legacyCallback
        logoURL = app.logoURL
        accentColor = app.accentColor
        termsURL = app.termsURL
        privacyURL = app.privacyURL
    }

}
