import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth

/// InsForge's answers for an ID-token sign-in (`POST /api/auth/apple/native` and
/// `POST /api/auth/id-token`): the checks and the sign-in are `IDTokenSignIn`'s; this renders them.
struct InsForgeIDTokenSignIn: Sendable {
    typealias Provider = IDTokenSignIn.Provider

    let feature: OAuthFeature
    let api: InsForgeAPI

    /// Verifies `token` and answers with a session in InsForge's shape, or with `refusal` (401)
    /// whatever was wrong with the token — the reason goes to the audit trail only.
    func signIn(
        _ token: String, provider: Provider, nonce: IDTokenVerifier.NonceRule, name: String?, request: Request,
        refusal: (code: String, message: String)
    ) async throws -> Response {
        switch try await IDTokenSignIn(feature: feature, via: "insforge-api").signIn(
            token, provider: provider, nonce: nonce, name: name, request: request)
        {
        case .signIn(let result, _, _):
            return try await api.answer(result, client: try InsForgeDelivery.clientType(request), request: request)
        case .refused: return InsForgeError.response(401, refusal.code, refusal.message)
        case .conflict(let message): return InsForgeError.response(409, "AUTH_EXTERNAL_CONFLICT", message)
        case .notConfigured:
            throw InsForgeAnswer(
                400, "PROVIDER_NOT_CONFIGURED",
                "\(provider.rawValue): no client id is configured for ID-token sign-in (--\(provider.rawValue)-audience).")
        }
    }
}
