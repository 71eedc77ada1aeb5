import Accounts
import Foundation
import OAuth

/// The app addresses Descope's API trusts: where a mailed link may open (`URI`, `redirectUrl`) and
/// which origins a passkey ceremony may name. A link goes to a registered app's callback, an origin
/// listed with `--descope-redirect-origin`, or a loopback origin (`localhost`, `127.0.0.1`, `[::1]`,
/// any port), so a stolen project id cannot mail people a link into someone else's site.
struct DescopeAppAddresses: Sendable {
    let configuration: WebConfiguration
    /// The registered apps; nil when provider sign-in (and so app registration) is off.
    let registry: ProviderRegistry?

    private static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]

    /// `url`'s origin: `scheme://host[:port]`, lowercased, the scheme's default port left out; nil
    /// when it has no scheme or host.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let defaultPort = ["http": 80, "https": 443][scheme]
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(bracketed)\(port)"
    }

    /// Whether a mailed link may open `uri` (an absolute URL without user info or fragment).
    func allowsLink(_ uri: String) async throws -> Bool {
        guard CallbackURL.registrationProblem(uri) == nil, let origin = Self.origin(of: uri),
            let components = URLComponents(string: uri)
        else { return false }
        if ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
            Self.loopbackHosts.contains(components.host?.lowercased() ?? "")
        {
            return true
        }
        if configuration.descopeRedirectOrigins.compactMap(Self.origin(of:)).contains(origin) { return true }
        return try await registry?.apps().contains { CallbackURL.match(uri, in: $0.callbackURLs) != nil } ?? false
    }

    /// The web origins of the registered apps' callbacks (an app's associated domain).
    func appOrigins() async throws -> Set<String> {
        let callbacks = try await registry?.apps().flatMap(\.callbackURLs) ?? []
        return Set(
            callbacks.filter { ["http", "https"].contains(URLComponents(string: $0)?.scheme?.lowercased() ?? "") }
                .compactMap(Self.origin(of:)))
    }
}
