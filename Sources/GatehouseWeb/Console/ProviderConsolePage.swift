import Accounts
import Foundation
import HTTPServer
import OAuth

/// `/_/providers`: sign-in providers and registered apps, the console's face of
/// `/_/api/providers` and `/_/api/apps` (same checks, same storage). Secrets go in, never out.
struct ProviderConsolePage: Sendable {
    let feature: OAuthFeature
    private var env: PageEnvironment { feature.env }

    init(feature: OAuthFeature) {
        self.feature = feature
    }

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/providers", env) { visit, staff in
            try await page(visit, staff)
        }
        router.consolePage(.post, "/_/providers", env, addProvider)
        router.consolePage(.post, "/_/providers/:name/mode", env) { visit, staff in
            let name = try visit.parameters.require("name")
            guard let mode = ProviderMode(rawValue: try visit.field("mode")) else {
                return try await page(
                    visit, staff, rowError: .init(row: "provider:" + name, message: "Use live or test."), status: 422)
            }
            guard try await feature.consoleOperations(staff, visit).setMode(mode, of: name) else {
                throw ConsoleError.notFound("No provider called \(name).")
            }
            return .redirect(to: "/_/providers?notice=\(Notice.providerModeChanged.rawValue)")
        }
        router.consolePage(.post, "/_/providers/:name/delete", env) { visit, staff in
            let name = try visit.parameters.require("name")
            guard try visit.field("confirm").trimmingCharacters(in: .whitespaces) == name else {
                return try await page(
                    visit, staff,
                    rowError: .init(
                        row: "provider:" + name,
                        message: "Type the provider's name exactly to confirm."), status: 422)
            }
            guard try await feature.consoleOperations(staff, visit).deleteProvider(name) else {
                throw ConsoleError.notFound("No provider called \(name).")
            }
            return .redirect(to: "/_/providers?notice=\(Notice.providerDeleted.rawValue)")
        }
        router.consolePage(.post, "/_/providers/apps", env, addApp)
        router.consolePage(.post, "/_/providers/apps/:id/delete", env) { visit, staff in
            let id = try visit.parameters.require("id")
            guard try visit.field("confirm").trimmingCharacters(in: .whitespaces) == id else {
                return try await page(
                    visit, staff,
                    rowError: .init(
                        row: "app:" + id,
                        message: "Type the app's id exactly to confirm."), status: 422)
            }
            guard try await feature.consoleOperations(staff, visit).deleteApp(id) else {
                throw ConsoleError.notFound("No app with the id \(id).")
            }
            return .redirect(to: "/_/providers?notice=\(Notice.appDeleted.rawValue)")
        }
    }

    private func addProvider(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let form = try ProviderForm(visit.form)
        var errors = FormErrors()
        guard let configuration = form.validate(&errors) else {
            return try await page(visit, staff, providerForm: form, providerErrors: errors, status: 422)
        }
        // The JSON API replaces a provider of the same name; here an "Add" never overwrites one.
        if try await feature.consoleOperations(staff, visit).hasProvider(named: configuration.name) {
            errors.add("name", "There is already a provider called \(configuration.name). Delete it first to replace it.")
            return try await page(visit, staff, providerForm: form, providerErrors: errors, status: 422)
        }
        try await feature.consoleOperations(staff, visit).save(configuration)
        return .redirect(to: "/_/providers?notice=\(Notice.providerCreated.rawValue)")
    }

    private func addApp(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let form = try AppForm(visit.form)
        let body = form.body
        let id = body.resolvedID
        var errors = FormErrors()
        for field in ["id", "name", "callbackURLs"] {
            if let problem = body.problems(id: id)[field] { errors.add(field, problem) }
        }
        if errors.isEmpty, try await feature.consoleOperations(staff, visit).hasApp(id: id) {
            errors.add("id", "There is already an app with the id \(id).")
        }
        guard errors.isEmpty else { return try await page(visit, staff, appForm: form, appErrors: errors, status: 422) }
        try await feature.consoleOperations(staff, visit).register(body.record(id: id, at: env.clock()))
        return .redirect(to: "/_/providers?notice=\(Notice.appCreated.rawValue)")
    }

    /// A problem with one row's form (mode switch or delete), shown on that row.
    struct RowError {
        var row: String
        var message: String
    }

    private func page(
        _ visit: Visit, _ staff: Staff, providerForm: ProviderForm = ProviderForm(),
        providerErrors: FormErrors = FormErrors(), appForm: AppForm = AppForm(),
        appErrors: FormErrors = FormErrors(), rowError: RowError? = nil, status: Int = 200
    ) async throws -> Response {
        let settings = feature.consoleOperations(staff, visit)
        let providers = try await settings.providers()
        let apps = try await settings.apps()
        var page: [String: Any] = [
            "providers": providers.map { row($0, error: rowError) },
            "providersEmpty": providers.isEmpty,
            "apps": apps.map { row($0, error: rowError) },
            "appsEmpty": apps.isEmpty,
            "providerForm": providerForm.context,
            "appForm": appForm.context,
            "testProviderEnabled": feature.settings.testProviderEnabled,
            // Said here, since the sign-in page then shows no provider buttons at all.
            "signInUnsupported": feature.backendSignsInWithProviders
                ? ""
                : "\(env.configuration.backendDescription) cannot take sign-ins from these providers through Gatehouse, "
                    + "so the sign-in pages show no provider buttons. The settings are kept for when the embedded backend is used.",
            "errors": ["provider": Self.byField(providerErrors), "app": Self.byField(appErrors)],
            "errorList": Self.list(providerErrors, prefix: "provider-") + Self.list(appErrors, prefix: "app-")
        ]
        // The InsForge API's anon key, when one is set (absent, the template says any key works).
        if let anonKey = env.configuration.anonKey { page["anonKey"] = anonKey }
        // What an app's SDK is pointed at, for each compatible API: the public URL, else the address
        // this page was reached at (its host already passed the allow-list).
        let baseURL = env.configuration.publicBaseURL(reachedBy: visit.request)
        page["connect"] =
            [
                "baseURL": baseURL, "descopeProjectIDs": env.configuration.descopeProjectIDs.joined(separator: ", "),
                "superTokensAPIKey": env.configuration.superTokensAPIKey ?? ""
            ] as [String: Any]
        return env.renderer.page(
            .consoleProviders,
            visit.consoleContext(
                title: "Sign-in providers", staff: staff, nav: .providers,
                backendName: env.configuration.backendDescription, page),
            status: status)
    }

    private func row(_ provider: ProviderConfiguration, error: RowError?) -> [String: Any] {
        let base = "/_/providers/" + (provider.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? provider.name)
        let filled = ProviderPresets.applying(to: provider)
        var row: [String: Any] = [
            "name": provider.name, "label": provider.label, "type": provider.type == .oidc ? "OIDC" : "OAuth 2.0",
            "live": provider.mode == .live, "otherMode": provider.mode == .live ? "test" : "live",
            "hasSecret": provider.clientSecret?.isEmpty == false,
            "modeURL": base + "/mode", "deleteURL": base + "/delete", "editURL": base + "/edit",
            "endpoints": filled.issuer ?? [filled.authorizationURL, filled.tokenURL].compactMap { $0 }.joined(separator: "\n")
        ]
        row["clientId"] = provider.clientId.isEmpty ? nil : provider.clientId
        row["error"] = error?.row == "provider:" + provider.name ? error?.message : nil
        return row
    }

    private func row(_ app: RegisteredApp, error: RowError?) -> [String: Any] {
        let base = "/_/providers/apps/" + (app.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? app.id)
        var row: [String: Any] = [
            "id": app.id, "name": app.name, "callbackURLs": app.callbackURLs, "unsafe": app.legacyCallback,
            "editURL": base + "/edit", "deleteURL": base + "/delete"
        ]
        row["error"] = error?.row == "app:" + app.id ? error?.message : nil
        return row
    }

    private static func byField(_ errors: FormErrors) -> [String: String] {
        Dictionary(errors.messages.map { ($0.field, $0.message) }, uniquingKeysWith: { first, _ in first })
    }

    private static func list(_ errors: FormErrors, prefix: String) -> [[String: String]] {
        errors.messages.map { ["field": prefix + $0.field, "message": $0.message] }
    }
}
