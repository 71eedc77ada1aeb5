import Accounts
import Foundation
import HTTPServer

/// `/_/providers/apps/{id}/edit`: a registered app's settings — name, callback URLs, callback mode
/// and the hosted page's branding — with a live preview of that page, light and dark
/// (`/_/app-preview`, framed by this page only). Same checks and storage as `POST /_/api/apps`.
struct AppConsolePage: Sendable {
    let feature: OAuthFeature
    private var env: PageEnvironment { feature.env }

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/providers/apps/:id/edit", env) { visit, staff in
            let id = try visit.parameters.require("id")
            guard let app = try await feature.consoleOperations(staff, visit).app(id: id) else {
                throw ConsoleError.notFound("No app with the id \(id).")
            }
            return page(visit, staff, form: AppForm(app), errors: FormErrors())
        }
        router.consolePage(.post, "/_/providers/apps/:id/edit", env, save)
        router.consolePage(.get, "/_/app-preview", env) { visit, _ in try await preview(visit) }
    }

    private func save(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let id = try visit.parameters.require("id")
        var form = try AppForm(visit.form)
        form.id = id
        let body = form.body
        var errors = FormErrors()
        for (field, problem) in body.problems(id: id).sorted(by: { $0.key < $1.key }) { errors.add(field, problem) }
        guard errors.isEmpty else { return page(visit, staff, form: form, errors: errors, status: 422) }
        guard try await feature.consoleOperations(staff, visit).update(body.record(id: id, at: env.clock())) else {
            throw ConsoleError.notFound("No app with the id \(id).")
        }
        return .redirect(to: "/_/providers?notice=\(Notice.appUpdated.rawValue)")
    }

    private func page(_ visit: Visit, _ staff: Staff, form: AppForm, errors: FormErrors, status: Int = 200) -> Response {
        let escapedID = form.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? form.id
        return env.renderer.page(
            .consoleApp,
            visit.consoleContext(
                title: "App \(form.name)", staff: staff, nav: .providers, backendName: env.configuration.backendDescription,
                [
                    "appForm": form.context, "actionURL": "/_/providers/apps/\(escapedID)/edit",
                    "previewURL": Self.previewURL(form),
                    "errors": ["app": Dictionary(errors.messages.map { ($0.field, $0.message) }) { first, _ in first }],
                    "errorList": errors.messages.map { ["field": "app-" + $0.field, "message": $0.message] }
                ]),
            status: status)
    }

    /// The preview of the form as typed (console.js keeps it current while the fields change). Its
    /// two frames differ only in their `color-scheme`, which the framed page's
    /// `prefers-color-scheme` follows.
    static func previewURL(_ form: AppForm) -> String {
        let fields = [
            ("name", form.name), ("logoURL", form.logoURL), ("accentColor", form.accentColor), ("termsURL", form.termsURL),
            ("privacyURL", form.privacyURL)
        ]
        return URLQuery.path("/_/app-preview", fields.filter { !$0.1.isEmpty })
    }

    /// The hosted sign-in page as an app with these settings would show it; inert, and framed by
    /// the console only. Fields that would not pass the checks are left out, as the page would.
    private func preview(_ visit: Visit) async throws -> Response {
        func valid(_ name: String) throws -> String? {
            guard let value = try visit.query(name), AppBranding.linkProblem(value) == nil else { return nil }
            return value
        }
        let name = try visit.query("name").flatMap { $0.isEmpty ? nil : String($0.prefix(100)) } ?? "Your app"
        let app = RegisteredApp(
            id: "preview", name: name, callbackURLs: [], legacyCallback: false, logoURL: try valid("logoURL"),
            accentColor: try visit.query("accentColor").flatMap(AppBranding.normalizedColor),
            termsURL: try valid("termsURL"), privacyURL: try valid("privacyURL"), createdAt: env.clock(), updatedAt: env.clock())
        let providers = await feature.buttonProviders()
        var response = env.renderer.page(
            .signIn,
            visit.context(
                title: "Sign in to \(name)",
                [
                    "brand": app.hostedPageContext, "preview": true,
                    "currentUser": false, "form": ["email": ""], "signUpURL": "/auth/sign-up",
                    "passwordReset": env.capabilities.contains(.passwordReset),
                    "methods": SignInPages.methodsContext(env),
                    "providers": providers.map { ["name": $0.name, "label": $0.label, "testMode": $0.mode == .test, "href": "#"] }
                ]))
        response.headers.replaceOrAdd("Content-Security-Policy", HostedSignIn.previewCSP(logoURL: app.logoURL))
        return response
    }
}
