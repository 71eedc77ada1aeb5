import Accounts
import Foundation
import HTTPServer
import OAuth

/// `/_/providers/{name}/edit`: a sign-in provider's settings, changed in place — the same fields and
/// checks as "Add provider" (`ProviderForm`); the name stays, and a blank client secret keeps the
/// stored one, which is never shown.
struct ProviderEditPage: Sendable {
    let feature: OAuthFeature
    private var env: PageEnvironment { feature.env }

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/providers/:name/edit", env) { visit, staff in
            let name = try visit.parameters.require("name")
            guard let provider = try await feature.consoleOperations(staff, visit).provider(named: name) else {
                throw ConsoleError.notFound("No provider called \(name).")
            }
            return page(visit, staff, form: ProviderForm(provider), errors: FormErrors())
        }
        router.consolePage(.post, "/_/providers/:name/edit", env, save)
    }

    private func save(_ visit: Visit, _ staff: Staff) async throws -> Response {
        var form = try ProviderForm(visit.form)
        form.name = try visit.parameters.require("name")
        form.preset = ""
        var errors = FormErrors()
        guard let configuration = form.validate(&errors) else {
            return page(visit, staff, form: form, errors: errors, status: 422)
        }
        guard try await feature.consoleOperations(staff, visit).update(configuration) else {
            throw ConsoleError.notFound("No provider called \(form.name).")
        }
        return .redirect(to: "/_/providers?notice=\(Notice.providerUpdated.rawValue)")
    }

    private func page(_ visit: Visit, _ staff: Staff, form: ProviderForm, errors: FormErrors, status: Int = 200) -> Response {
        let escaped = form.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? form.name
        var fields = form.context
        fields["editing"] = true
        return env.renderer.page(
            .consoleProvider,
            visit.consoleContext(
                title: "Provider \(form.name)", staff: staff, nav: .providers, backendName: env.configuration.backendDescription,
                [
                    "providerForm": fields, "actionURL": "/_/providers/\(escaped)/edit",
                    "errors": ["provider": Dictionary(errors.messages.map { ($0.field, $0.message) }) { first, _ in first }],
                    "errorList": errors.messages.map { ["field": "provider-" + $0.field, "message": $0.message] }
                ]),
            status: status)
    }
}

extension OAuthFeature {
    /// The owner of provider and app changes, acting for a superuser on a console page.
    func consoleOperations(_ staff: Staff, _ visit: Visit) -> ProviderOperations {
        ProviderOperations(env: env.accounts, registry: registry, staff: staff, request: visit.request, via: "console")
    }
}
