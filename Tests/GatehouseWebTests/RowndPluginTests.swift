import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The Rownd SDK's plugin routes on Gatehouse's FDI: the user's `data` is the Gatehouse profile
/// (the one the core API's metadata and the pages edit), `meta` is the app's, kept apart, and what
/// Gatehouse cannot do is refused in the plugin's own words.
@Suite(.stopsWhatItStarts) struct RowndPluginTests {
    static let password = SuperTokensFDIAccountTests.password
    static let user = "/auth/plugin/rownd/user"

    /// A signed-up app and its account's id.
    static func signedUp(_ gatehouse: TestGatehouse, _ email: String) async throws -> (FDIScript, String) {
        let app = FDIScript(gatehouse)
        let signUp = try await app.emailPassword("signup", email, password)
        let id = try #require((signUp.json["user"] as? [String: Any])?["id"] as? String, "\(signUp.json)")
        return (app, id)
    }

    /// What the plugin writes to `data` is the profile the core API's metadata reads, and what the
    /// profile's owner writes there shows in `data`: one set of fields.
    @Test func theUsersDataIsTheGatehouseProfile() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (app, id) = try await Self.signedUp(gatehouse, "ada@example.com")
        let fresh = try await app.call("GET", Self.user)
        let data = try #require(fresh.json["data"] as? [String: Any], "\(fresh.json)")
        #expect(data["email"] as? String == "ada@example.com" && data["user_id"] as? String == id)
        #expect(data["first_name"] as? String == "" && fresh.json["auth_level"] as? String == "verified", "no verification asked")
        let put = try await app.call("PUT", Self.user, ["data": ["first_name": "Ada"]])
        #expect((put.json["data"] as? [String: Any])?["first_name"] as? String == "Ada", "\(put.json)")
        let metadata = try await SuperTokensCoreLookupTests.core(gatehouse, "GET", "/recipe/user/metadata?userId=\(id)")
        #expect((metadata.json["metadata"] as? [String: Any])?["first_name"] as? String == "Ada", "\(metadata.json)")
        _ = try await SuperTokensCoreLookupTests.core(
            gatehouse, "PUT", "/recipe/user/metadata", ["userId": id, "metadataUpdate": ["nick_name": "Countess"]])
        let field = try await app.call("GET", Self.user + "/field?field=nick_name")
        #expect(field.json["value"] as? String == "Countess", "\(field.json)")
        let putField = try await app.call("PUT", Self.user + "/field?field=last_name", ["value": "Lovelace"])
        #expect((putField.json["data"] as? [String: Any])?["last_name"] as? String == "Lovelace", "\(putField.json)")
    }

    /// `meta` is the app's: kept, merged and answered, never in the profile.
    @Test func metaIsKeptApartFromTheProfile() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (app, id) = try await Self.signedUp(gatehouse, "bo@example.com")
        let put = try await app.call("PUT", Self.user + "/meta", ["meta": ["plan": "pro", "seen": 3]])
        #expect((put.json["meta"] as? [String: Any])?["plan"] as? String == "pro" && put.json["id"] as? String == id)
        _ = try await app.call("PUT", Self.user + "/meta", ["meta": ["seen": NSNull()]])
        let meta = try await app.call("GET", Self.user + "/meta")
        #expect(meta.json["meta"] as? [String: String] == ["plan": "pro"], "\(meta.json)")
        let user = try await app.call("GET", Self.user)
        #expect((user.json["meta"] as? [String: Any])?["plan"] as? String == "pro")
        #expect((user.json["data"] as? [String: Any])?["plan"] == nil)
        let metadata = try await SuperTokensCoreLookupTests.core(gatehouse, "GET", "/recipe/user/metadata?userId=\(id)")
        #expect((metadata.json["metadata"] as? [String: Any])?.isEmpty == true, "\(metadata.json)")
    }

    /// Meta past its bound is refused whole: nothing of the oversized write is kept.
    @Test func oversizedMetaIsRefusedAndNothingIsWritten() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (app, _) = try await Self.signedUp(gatehouse, "cy@example.com")
        let big = String(repeating: "x", count: 17 * 1024)
        let refused = try await app.call("PUT", Self.user + "/meta", ["meta": ["kept": "yes", "blob": big]])
        #expect(refused.status == 400 && refused.json["status"] as? String == "ERROR", "\(refused.json)")
        #expect(try await app.call("GET", Self.user + "/meta").json["meta"] as? [String: String] == [:])
    }

    /// The account's identity is not the app's to write: `user_id` (and the provider ids) are refused
    /// with the plugin's 403, and the profile is unchanged.
    @Test func identityFieldsAreNotWritable() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (app, id) = try await Self.signedUp(gatehouse, "di@example.com")
        for field in ["user_id", "google_id"] {
            let refused = try await app.call("PUT", Self.user, ["data": [field: "someone-else", "first_name": "Di"]])
            #expect(refused.status == 403 && refused.json["message"] as? String == "field is not writable: \(field)")
        }
        let data = try #require(try await app.call("GET", Self.user).json["data"] as? [String: Any])
        #expect(data["user_id"] as? String == id && data["first_name"] as? String == "")
    }

    /// No session, no user; a cookie-carried session without the SDK's `rid` header (a cross-site
    /// form) changes nothing.
    @Test func theRoutesNeedTheAccountsOwnSession() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let anonymous = try await FDIScript(gatehouse).call("GET", Self.user)
        #expect(anonymous.status == 401 && anonymous.json["message"] as? String == "unauthorised")
        let cookie = FDIScript(gatehouse, cookieMode: true)
        _ = try await cookie.emailPassword("signup", "ed@example.com", Self.password)
        let forged = try await cookie.call("PUT", Self.user, ["data": ["first_name": "Mallory"]], rid: nil)
        #expect(forged.status == 401, "\(forged.json)")
        let data = try #require(try await cookie.call("GET", Self.user).json["data"] as? [String: Any])
        #expect(data["first_name"] as? String == "")
    }

    /// A new address asked through `data.email` is mailed a confirmation; the account keeps its
    /// address until it is confirmed.
    @Test func aNewAddressWaitsForItsConfirmation() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (app, _) = try await Self.signedUp(gatehouse, "fay@example.com")
        let moved = try await app.call("PUT", Self.user, ["data": ["email": "fay.new@example.com"]])
        #expect(moved.json["email_verification_pending"] as? Bool == true, "\(moved.json)")
        #expect((moved.json["data"] as? [String: Any])?["email"] as? String == "fay@example.com")
        #expect(try await gatehouse.mails(to: "fay.new@example.com").count == 1)
        let same = try await app.call("PUT", Self.user, ["data": ["email": "FAY@example.com"]])
        #expect(same.json["email_verification_pending"] as? Bool == false, "\(same.json)")
    }

    /// The plugin's sign-out ends every session of the account; `DELETE user` ends the account.
    @Test func signOutEndsEverySessionAndDeleteEndsTheAccount() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (phone, _) = try await Self.signedUp(gatehouse, "gus@example.com")
        let tablet = FDIScript(gatehouse)
        _ = try await tablet.emailPassword("signin", "gus@example.com", Self.password)
        #expect(try await phone.call("POST", "/auth/plugin/rownd/signout").json["status"] as? String == "OK")
        #expect(try await tablet.refresh().status == 401)
        #expect(try await phone.refresh().status == 401)
        _ = try await tablet.emailPassword("signin", "gus@example.com", Self.password)
        #expect(try await tablet.call("DELETE", Self.user).json["status"] as? String == "OK")
        #expect(try await tablet.call("GET", Self.user).status == 401)
        let again = try await FDIScript(gatehouse).emailPassword("signin", "gus@example.com", Self.password)
        #expect(again.json["status"] as? String == "WRONG_CREDENTIALS_ERROR", "\(again.json)")
    }

    /// What Gatehouse cannot do answers as the plugin does: a legacy Rownd token cannot be verified
    /// here (Rownd's keys are online only), instant accounts are off, the cross-device bypass is refused.
    @Test func whatGatehouseCannotDoIsRefusedInThePluginsWords() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        let missing = try await app.call("POST", "/auth/plugin/rownd/migrate")
        #expect(missing.status == 401 && missing.json["reason"] as? String == "TOKEN_MISSING", "\(missing.json)")
        let rownd = "Bearer eyJhbGciOiJFZERTQSIsImtpZCI6InJvd25kIn0.eyJzdWIiOiJ4In0.c2ln"
        let legacy = try await app.call("POST", "/auth/plugin/migrate-session", extra: [("Authorization", rownd)])
        #expect(legacy.status == 401 && legacy.json["reason"] as? String == "TOKEN_KID_UNKNOWN", "\(legacy.json)")
        #expect(app.accessToken == nil, "no session for an unverified token")
        let instant = try await app.call("POST", "/auth/plugin/rownd/guest", ["auth_level": "instant"])
        #expect(instant.json["message"] as? String == "Instant sign-in is not enabled", "\(instant.json)")
        #expect(app.accessToken == nil, "no session for an instant account")
        let bypass = try await app.call("POST", "/auth/plugin/passwordless-cross-device-confirmation/validate", [:])
        #expect(bypass.json["bypass"] as? Bool == false)
    }

    /// The app's configuration names this API as the SDK was told it (`apiBasePath`), the email
    /// sign-in and guests, and no way in Gatehouse does not offer.
    @Test func appConfigNamesThisAPI() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let answer = try await FDIScript(gatehouse).call("GET", "/auth/plugin/rownd/app-config")
        let config = try #require((answer.json["app"] as? [String: Any])?["config"] as? [String: Any], "\(answer.json)")
        let appInfo = (config["supertokens"] as? [String: Any])?["appInfo"] as? [String: Any]
        #expect(appInfo?["apiBasePath"] as? String == "/auth")
        let methods = ((config["hub"] as? [String: Any])?["auth"] as? [String: Any])?["sign_in_methods"] as? [String: Any]
        #expect((methods?["email"] as? [String: Any])?["enabled"] as? Bool == true)
        #expect((methods?["google"] as? [String: Any])?["enabled"] as? Bool == false)
        let anonymous = methods?["anonymous"] as? [String: Any]
        #expect(anonymous?["enabled"] as? Bool == true && anonymous?["type"] as? String == "guest", "\(methods ?? [:])")
        let variant = try await FDIScript(gatehouse).call("GET", "/auth/plugin/rownd/app-config?app_variant_id=kids")
        #expect(variant.status == 400 && variant.json["reason"] as? String == "UNKNOWN_APP_VARIANT", "\(variant.json)")
    }
}
