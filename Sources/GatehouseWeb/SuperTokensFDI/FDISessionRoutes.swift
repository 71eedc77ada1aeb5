import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The session recipe's FDI routes (`session/refresh`, `signout`), what the frontend asks before
/// it draws its sign-in form (`loginmethods`), and what the app's own API needs to check access
/// tokens by itself (`jwt/jwks.json`, `.well-known/openid-configuration`).
struct FDISessionRoutes: Sendable {
    let fdi: SuperTokensFDI

    func register(on router: inout Router) {
        fdi.on(&router, .post, "/session/refresh") { request in try await fdi.sessions.refresh(request) }
        fdi.on(&router, .post, "/signout") { request in try await fdi.sessions.signOut(request) }
        fdi.on(&router, .get, "/loginmethods") { _ in loginMethods }
        fdi.on(&router, .get, "/jwt/jwks.json") { _ in try .json(fdi.tokens.jwks) }
        fdi.on(&router, .get, "/.well-known/openid-configuration") { _ in
            SuperTokensFDI.status(
                "OK",
                [
                    "issuer": .string(fdi.issuer), "jwks_uri": .string(fdi.issuer + "/jwt/jwks.json"),
                    "subject_types_supported": .array(["public"]),
                    "id_token_signing_alg_values_supported": .array(["ES256"])
                ])
        }
    }

    /// The first factors this API offers, as the server's `--sign-in-methods` allow them.
    private var loginMethods: Response {
        let methods = fdi.env.accounts.signInMethods
        let password = methods.contains(.password)
        let code = methods.contains(.emailCode) && fdi.env.capabilities.contains(.emailOTP)
        let link =
            fdi.env.configuration.superTokensWebsiteURL != nil && methods.contains(.magicLink)
            && fdi.env.capabilities.contains(.magicLink)
        let factors: [JSONValue] =
            (password ? ["emailpassword"] : []) + (code ? ["otp-email"] : []) + (link ? ["link-email"] : [])
        return SuperTokensFDI.status(
            "OK",
            [
                "emailPassword": .object(["enabled": .bool(password)]), "passwordless": .object(["enabled": .bool(code || link)]),
                "thirdParty": .object(["enabled": .bool(false), "providers": .array([])]),
                "webauthn": .object(["enabled": .bool(false)]), "firstFactors": .array(factors)
            ])
    }
}
