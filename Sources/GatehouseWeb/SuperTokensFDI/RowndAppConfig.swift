import AuthCore
import Foundation

/// `plugin/rownd/app-config`: the app as the Rownd SDK and its Hub read it — supertokens-rownd's
/// answer for an app signing in by email (the schema, the Hub's look, which ways in it shows),
/// plus `config.supertokens.appInfo`, which the SDK checks against its own `apiDomain` and
/// `apiBasePath` before it trusts the rest.
struct RowndAppConfig: Sendable {
    var apiDomain: String
    var apiBasePath: String
    /// Whether the email sign-in (code, or link) is on.
    var emailSignIn: Bool
    /// Whether guest accounts are offered (`plugin/rownd/guest`).
    var guests: Bool

    var json: JSONValue {
        let hub: [String: JSONValue] = [
            "customizations": .object([
                "rounded_corners": .bool(true), "visual_swoops": .bool(true), "blur_background": .bool(true),
                "dark_mode": "auto"
            ]),
            "auth": .object([
                "email": .object(["from_address": "no-reply@rownd.io", "image": ""]),
                "sign_in_methods": signInMethods, "additional_fields": .array([]), "show_app_icon": .bool(false)
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

    /// The Rownd SDK's default fields, and the address when the email sign-in is on.
    private var schema: [String: JSONValue] {
        var fields = [
            ("first_name", "First name"), ("last_name", "Last name"), ("nick_name", "Nick name"), ("zip_code", "Zip code")
        ]
        if emailSignIn { fields.append(("email", "Email")) }
        return Dictionary(
            uniqueKeysWithValues: fields.map { key, name in
                let field: [String: JSONValue] = [
                    "display_name": .string(name), "type": "string", "owned_by": "user", "user_visible": .bool(true),
                    "read_only": .bool(false), "show_empty": .bool(false)
                ]
                return (key, JSONValue.object(field))
            })
    }

    /// Email, and guests (the plugin's `anonymous` method of `type` `guest`): Gatehouse has no phone
    /// sign-in, and Google and Apple are not offered here.
    private var signInMethods: JSONValue {
        let off = JSONValue.object(["enabled": .bool(false)])
        let oneTap = JSONValue.object(["auto_prompt": .bool(false), "delay": .number(7000)])
        let google: [String: JSONValue] = [
            "enabled": .bool(false), "client_id": "", "ios_client_id": "", "scopes": .array([]),
            "one_tap": .object(["browser": oneTap, "mobile_app": oneTap])
        ]
        return .object([
            "email": .object(["enabled": .bool(emailSignIn)]), "phone": off, "google": .object(google),
            "apple": .object(["enabled": .bool(false), "client_id": ""]),
            "anonymous": guests ? .object(["enabled": .bool(true), "type": "guest"]) : off
        ])
    }
}
