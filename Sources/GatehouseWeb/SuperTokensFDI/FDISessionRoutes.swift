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
        fdi.on(&router, .get, "/loginmethods") { _ in await loginMethods() }
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

    /// The first factors this API offers, as the server's `--sign-in-methods` allow them, and the
    /// providers a frontend may sign in with (`FDIThirdPartyRoutes`).
    private func loginMethods() async -> Response {
        let providers = await fdi.oauth?.buttonProviders() ?? []
        let factors = fdi.firstFactors + (providers.isEmpty ? [] : [FDIThirdPartyRoutes.factor])
        return SuperTokensFDI.status(
            "OK",
            [
                "emailPassword": .object(["enabled": .bool(factors.contains("emailpassword"))]),
                "passwordless": .object(["enabled": .bool(factors.contains("otp-email") || factors.contains("link-email"))]),
                "thirdParty": .object([
                    "enabled": .bool(!providers.isEmpty),
                    "providers": .array(providers.map { .object(["id": .string($0.name), "name": .string($0.label)]) })
                ]),
                "webauthn": .object(["enabled": .bool(false)]), "firstFactors": .array(factors.map(JSONValue.string))
            ])
    }
}
