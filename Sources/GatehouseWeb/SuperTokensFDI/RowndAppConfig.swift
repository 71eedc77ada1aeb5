import AuthCore
import Foundation

/// `plugin/rownd/app-config`: the app as the Rownd SDK and its Hub read it — supertokens-rownd's
/// answer (the schema, the Hub's look, the ways in the Hub shows: `RowndHubWaysIn`), plus
/// `config.supertokens.appInfo`, which the SDK checks against its own `apiDomain` and
/// `apiBasePath` before it trusts the rest. `use_explicit_sign_up_flow` is on, so the SDK passes an
/// app's sign-in or sign-up intent on to the Hub (it drops both otherwise).
struct RowndAppConfig: Sendable {
    var apiDomain: String
    var apiBasePath: String
    /// The ways in the Hub offers.
    var waysIn: RowndHubWaysIn

    var json: JSONValue {
        let hub: [String: JSONValue] = [
            "customizations": .object([
                "rounded_corners": .bool(true), "visual_swoops": .bool(true), "blur_background": .bool(true),
                "dark_mode": "auto"
            ]),
            "auth": .object([
                "email": .object(["from_address": "no-reply@rownd.io", "image": ""]),
                "sign_in_methods": signInMethods, "additional_fields": .array([]), "show_app_icon": .bool(false),
                "use_explicit_sign_up_flow": .bool(true)
            ]),
            "legal": .object([:]), "profile": .object([:]), "custom_content": .object([:])
        ]
        let appInfo: [String: JSONValue] = ["apiDomain": .string(apiDomain), "apiBasePath": .string(apiBasePath)]
        let config: [String: JSONValue] = [
            "customizations": .object(["primary_color": "#5b5bd6"]), "hub": .object(hub),
            "supertokens": .object(["appInfo": .object(appInfo)])
        ]
        let app: [String: JSONValue] = [
            "id": "", "name": "Gatehouse", "icon": "", "schema": .object(schema), "config": .object(config)
        ]
        return .object(["status": "OK", "config_type": "app", "app": .object(app)])
    }

    /// The Rownd SDK's default fields, the address when the email sign-in is on, and the provider
    /// ids (not shown to the person) when Google or Apple is, as the plugin adds them.
    private var schema: [String: JSONValue] {
        var fields = [
            ("first_name", "First name", true), ("last_name", "Last name", true), ("nick_name", "Nick name", true),
            ("zip_code", "Zip code", true)
        ]
        if waysIn.email { fields.append(("email", "Email", true)) }
        if waysIn.showsGoogle { fields.append(("google_id", "Google ID", false)) }
        if waysIn.showsApple { fields.append(("apple_id", "Apple ID", false)) }
        return Dictionary(
            uniqueKeysWithValues: fields.map { key, name, visible in
                let field: [String: JSONValue] = [
                    "display_name": .string(name), "type": "string", "owned_by": "user", "user_visible": .bool(visible),
                    "read_only": .bool(false), "show_empty": .bool(false)
                ]
                return (key, JSONValue.object(field))
            })
    }

    /// What the Hub shows: email, Google and Apple (with the client ids the SDK's native sign-in
    /// needs), never a phone (Gatehouse has none).
    private var signInMethods: JSONValue {
        let off = JSONValue.object(["enabled": .bool(false)])
        let oneTap = JSONValue.object(["auto_prompt": .bool(false), "delay": .number(7000)])
        let google: [String: JSONValue] = [
            "enabled": .bool(waysIn.showsGoogle), "client_id": .string(waysIn.google?.clientID ?? ""),
            "ios_client_id": .string(waysIn.google?.iosClientID ?? ""), "scopes": .array([]),
            "one_tap": .object(["browser": oneTap, "mobile_app": oneTap])
        ]
        let apple: [String: JSONValue] = [
            "enabled": .bool(waysIn.showsApple), "client_id": .string(waysIn.apple?.clientID ?? "")
        ]
        return .object([
            "email": .object(["enabled": .bool(waysIn.email)]), "phone": off, "google": .object(google),
            "apple": .object(apple), "anonymous": off
        ])
    }
}
