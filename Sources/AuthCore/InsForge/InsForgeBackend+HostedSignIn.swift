import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import SystemCrypto
#endif

/// InsForge's hosted sign-in, as its Swift SDK's `signInWithDefaultView(redirectTo:)` and
/// `handleAuthCallback(_:)` do it: the app opens the server's sign-in page with a PKCE challenge,
/// the person signs in there, the browser comes back to the app's registered redirect with a
/// one-time `insforge_code`, and the app trades it with the kept verifier for a session.
extension InsForgeBackend {
    /// A hosted sign-in in progress: the page to open and the verifier to keep until the callback.
    public struct HostedSignIn: Sendable, Equatable {
        /// `BASE/auth/sign-in?redirect=…&client_type=mobile&code_challenge=…` (S256 implied, as the SDK sends it).
        public var url: URL
        /// The PKCE verifier (32 random bytes, base64url); it never leaves the app before the exchange.
        public var codeVerifier: String
    }

    /// The hosted page to open for a sign-in that returns to `redirectTo` (one of the app's
    /// registered callbacks on the server).
    public func signInWithDefaultView(redirectTo: String) throws -> HostedSignIn {
        var random = SystemRandomNumberGenerator()
        let verifier = Self.base64URL(Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }))
        let challenge = Self.base64URL(try Self.sha256(Data(verifier.utf8)))
        let page = configuration.baseURL.appendingPathComponent("auth/sign-in")
        guard var components = URLComponents(url: page, resolvingAgainstBaseURL: false) else {
            return HostedSignIn(url: page, codeVerifier: verifier)
        }
        components.queryItems = [
            URLQueryItem(name: "redirect", value: redirectTo), URLQueryItem(name: "client_type", value: "mobile"),
            URLQueryItem(name: "code_challenge", value: challenge)
        ]
        // Form-style: a `+` in the redirect must not read as a space.
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components.percentEncodedQuery = query
        return HostedSignIn(url: components.url ?? page, codeVerifier: verifier)
    }

    /// Finishes a hosted sign-in from the URL the browser came back to: its `insforge_code` and the
    /// kept verifier become a session (`POST /api/auth/oauth/exchange`). A callback with `error`, or
    /// without a code, is `.invalidCode`; a spent, expired or mismatched code is refused by the server.
    public func handleAuthCallback(_ url: URL, codeVerifier: String) async throws -> AuthSession {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard !items.contains(where: { $0.name == "error" }),
            let code = items.first(where: { $0.name == "insforge_code" })?.value, !code.isEmpty
        else { throw AuthError.invalidCode }
        do {
            let reply = try await http.json(
                InsForgeAuthReply.self, "POST", "api/auth/oauth/exchange",
                query: [URLQueryItem(name: "client_type", value: "mobile")],
                body: ["code": .string(code), "code_verifier": .string(codeVerifier)])
            guard let session = session(from: reply) else { throw AuthError.invalidCode }
            return session
        } catch AuthError.sessionExpired {
            // InsForge answers a spent code or a wrong verifier with 401.
            throw AuthError.invalidCode
        }
    }

    /// SHA-256 from CryptoKit on Apple platforms and from the system's libcrypto elsewhere.
    private static func sha256(_ data: Data) throws -> Data {
        #if canImport(CryptoKit)
            Data(CryptoKit.SHA256.hash(data: data))
        #else
            Data(try SystemCrypto.SHA256.digest(data))
        #endif
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
