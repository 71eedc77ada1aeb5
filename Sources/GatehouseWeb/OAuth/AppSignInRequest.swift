import Accounts
import Foundation
import HTTPServer
import OAuth

/// What an app asked the hosted sign-in page for (InsForge SDK's `signInWithDefaultView`):
/// where to return, which PKCE challenge the code is bound to, and what kind of client it is.
struct AppSignInRequest: Codable, Sendable, Equatable {
    var appID: String
    var callbackURL: String
    var clientType: String
    /// Nil only in an app's legacy mode (older SDKs send no challenge).
    var codeChallenge: String?
    /// The callback's query parameter that carries the code: InsForge's `insforge_code` unless the
    /// request names `code` (`code_name=code`, Descope's `oauth/authorize`, whose SDKs read `code`).
    var codeName: String?

    /// The callback parameter the code goes in.
    var callbackCodeName: String { codeName ?? "insforge_code" }

    struct Refusal: Error, Equatable {
        let message: String
    }

    /// Whether these query parameters ask for the app flow rather than a local redirect.
    static func isAppRequest(_ query: Parameters) -> Bool {
        for key in ["client_type", "code_challenge", "code_challenge_method", "redirect_to"] where !query.values(key).isEmpty {
            return true
        }
        guard let redirect = query["redirect"] else { return false }
        return !redirect.hasPrefix("/") || URLQuery.localRedirect(redirect, fallback: "") != redirect
    }

    /// Validates the app parameters against the registered apps; every problem is a refusal
    /// shown on Gatehouse's own page — never a redirect to an unchecked URL.
    static func parse(_ query: Parameters, registry: ProviderRegistry) async throws -> AppSignInRequest {
        let redirect = try query.single("redirect")
        let redirectTo = try query.single("redirect_to")
        if let redirect, let redirectTo, redirect != redirectTo {
            throw Refusal(message: "The request names two different return addresses.")
        }
        guard let requested = redirect ?? redirectTo, !requested.isEmpty else {
            throw Refusal(message: "The app did not say where to return after sign-in.")
        }
        let apps = try await registry.apps()
        guard let app = apps.first(where: { CallbackURL.match(requested, in: $0.callbackURLs) != nil }) else {
            throw Refusal(message: "This return address is not registered for any app, so Gatehouse will not send you there.")
        }
        let method = try query.single("code_challenge_method")
        if let method, method != PKCE.method {
            throw Refusal(message: "Only the S256 code challenge method is accepted.")
        }
        let challenge = try query.single("code_challenge")
        if let challenge {
            guard PKCE.isValidChallenge(challenge) else {
                throw Refusal(message: "The code challenge is not a valid S256 challenge.")
            }
        } else if !app.legacyCallback {
            throw Refusal(message: "The app must send a PKCE code challenge (S256).")
        }
        let clientType = try query.single("client_type") ?? "web"
        guard ClientType(rawValue: clientType) != nil else {
            throw Refusal(message: "client_type must be web, mobile, desktop or server.")
        }
        let codeName = try query.single("code_name")
        guard codeName == nil || codeName == "code" || codeName == "insforge_code" else {
            throw Refusal(message: "code_name must be code or insforge_code.")
        }
        return AppSignInRequest(
            appID: app.id, callbackURL: requested, clientType: clientType, codeChallenge: challenge, codeName: codeName)
    }

    /// The app flow's parameters when `parameters` carry them (nil for a plain page, or when the
    /// server has no OAuth feature), or why they are refused.
    static func requested(in parameters: Parameters, oauth: OAuthFeature?) async throws -> Result<AppSignInRequest?, Refusal> {
        guard let oauth, isAppRequest(parameters) else { return .success(nil) }
        do {
            return .success(try await parse(parameters, registry: oauth.registry))
        } catch let refusal as Refusal {
            return .failure(refusal)
        }
    }

    /// The registered app this request was checked against (nil once it is deleted).
    static func registered(_ request: AppSignInRequest, registry: ProviderRegistry) async throws -> RegisteredApp? {
        try await registry.apps().first { $0.id == request.appID }
    }

    /// The parameters again, for hidden form fields and provider links.
    var queryItems: [(String, String)] {
        var items = [("redirect", callbackURL), ("client_type", clientType)]
        if let codeChallenge { items += [("code_challenge", codeChallenge), ("code_challenge_method", PKCE.method)] }
        if let codeName { items.append(("code_name", codeName)) }
        return items
    }

    var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }

    static func fromJSON(_ text: String?) -> AppSignInRequest? {
        text.flatMap { try? JSONDecoder().decode(AppSignInRequest.self, from: Data($0.utf8)) }
    }
}
