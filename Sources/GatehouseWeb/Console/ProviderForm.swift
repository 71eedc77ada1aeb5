import Accounts
import Foundation
import HTTPServer
import OAuth

/// The console's "Add provider" form, as typed. It becomes a `ProviderConfiguration`, so the page and
/// `POST /_/api/providers` check a provider the same way.
struct ProviderForm {
    var name = "", type = "oidc", preset = "", mode = "live", displayName = ""
    var issuer = "", authorizationURL = "", tokenURL = "", userInfoURL = "", clientId = "", scopes = ""
    /// Never shown again: a re-rendered form leaves the secret field empty.
    var clientSecret = ""

    init() {}

    /// A configured provider, to edit (without its secret).
    init(_ provider: ProviderConfiguration) {
        name = provider.name
        type = provider.type.rawValue
        mode = provider.mode.rawValue
        displayName = provider.displayName ?? ""
        issuer = provider.issuer ?? ""
        authorizationURL = provider.authorizationURL ?? ""
        tokenURL = provider.tokenURL ?? ""
        userInfoURL = provider.userInfoURL ?? ""
        clientId = provider.clientId
        scopes = provider.scopes.joined(separator: " ")
    }

    init(_ form: Parameters) throws(RequestError) {
        func text(_ key: String) throws(RequestError) -> String {
            (try form.single(key) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        name = try text("name").lowercased()
        type = try text("type")
        preset = try text("preset")
        mode = try text("mode")
        displayName = try text("displayName")
        issuer = try text("issuer")
        authorizationURL = try text("authorizationURL")
        tokenURL = try text("tokenURL")
        userInfoURL = try text("userInfoURL")
        clientId = try text("clientId")
        clientSecret = try form.single("clientSecret") ?? ""
        scopes = try text("scopes")
    }

    /// The configuration to save, or nil with the problems added to `errors`. A preset names the
    /// provider and brings its type and endpoints (`ProviderPresets` applies by name).
    func validate(_ errors: inout FormErrors) -> ProviderConfiguration? {
        var name = name
        var type = ProviderType(rawValue: type)
        if !preset.isEmpty {
            if let known = ProviderPresets.preset(named: preset) {
                if name.isEmpty { name = preset }
                if name != preset {
                    errors.add("preset", "A preset applies to a provider with its name: leave the name empty or use \(preset).")
                }
                type = known.type
            } else {
                errors.add("preset", "Pick one of the listed presets.")
            }
        }
        guard let type else {
            errors.add("type", "Use oidc or oauth2.")
            return nil
        }
        guard let mode = ProviderMode(rawValue: mode) else {
            errors.add("mode", "Use live or test.")
            return nil
        }
        let configuration = ProviderConfiguration(
            name: name, type: type, mode: mode, displayName: Self.optional(displayName), issuer: Self.optional(issuer),
            authorizationURL: Self.optional(authorizationURL), tokenURL: Self.optional(tokenURL),
            userInfoURL: Self.optional(userInfoURL), jwksURL: nil, clientId: clientId, clientSecret: Self.optional(clientSecret),
            scopes: scopes.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
        // Fields in form order, so the summary reads top to bottom.
        let problems = configuration.problems()
        for field in ["name", "issuer", "authorizationURL", "tokenURL", "userInfoURL", "jwksURL", "clientId"] {
            if let problem = problems[field] { errors.add(field, problem) }
        }
        return errors.isEmpty ? configuration : nil
    }

    /// The typed values for the template, without the secret.
    var context: [String: Any] {
        var context: [String: Any] = [
            "name": name, "displayName": displayName, "issuer": issuer, "authorizationURL": authorizationURL,
            "tokenURL": tokenURL, "userInfoURL": userInfoURL, "clientId": clientId, "scopes": scopes
        ]
        context["typeOAuth2"] = type == "oauth2" ? true : nil
        context["modeTest"] = mode == "test" ? true : nil
        context["presets"] = ProviderPresets.all.keys.sorted().map { key -> [String: Any] in
            ["value": key, "label": ProviderPresets.all[key]?.displayName ?? key, "selected": key == preset]
        }
        return context
    }

    private static func optional(_ text: String) -> String? { text.isEmpty ? nil : text }
}

/// The console's "Register app" form: one callback URL a line, checked by `AppBody.problems`.
struct AppForm {
    var id = "", name = "", callbackURLs = "", legacyCallback = false
    /// The hosted page's branding (`AppBranding`); blank means none.
    var logoURL = "", accentColor = "", termsURL = "", privacyURL = ""

    init() {}

    init(_ form: Parameters) throws(RequestError) {
        id = (try form.single("id") ?? "").trimmingCharacters(in: .whitespaces)
        name = (try form.single("name") ?? "").trimmingCharacters(in: .whitespaces)
        callbackURLs = try form.single("callbackURLs") ?? ""
        legacyCallback = try form.single("legacyCallback") == "true"
        logoURL = (try form.single("logoURL") ?? "").trimmingCharacters(in: .whitespaces)
        accentColor = (try form.single("accentColor") ?? "").trimmingCharacters(in: .whitespaces)
        termsURL = (try form.single("termsURL") ?? "").trimmingCharacters(in: .whitespaces)
        privacyURL = (try form.single("privacyURL") ?? "").trimmingCharacters(in: .whitespaces)
    }

    /// A registered app, to edit.
    init(_ app: RegisteredApp) {
        id = app.id
        name = app.name
        callbackURLs = app.callbackURLs.joined(separator: "\n")
        legacyCallback = app.legacyCallback
        logoURL = app.logoURL ?? ""
        accentColor = app.accentColor ?? ""
        termsURL = app.termsURL ?? ""
        privacyURL = app.privacyURL ?? ""
    }

    var body: AppBody {
        AppBody(
            id: id.isEmpty ? nil : id, name: name,
            callbackURLs: callbackURLs.split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
            legacyCallback: legacyCallback, logoURL: logoURL, accentColor: accentColor, termsURL: termsURL,
            privacyURL: privacyURL)
    }

    var context: [String: Any] {
        var context: [String: Any] = [
            "id": id, "name": name, "callbackURLs": callbackURLs, "logoURL": logoURL, "accentColor": accentColor,
            "termsURL": termsURL, "privacyURL": privacyURL
        ]
        context["legacyCallback"] = legacyCallback ? true : nil
        return context
    }
}
