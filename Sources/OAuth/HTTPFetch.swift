import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one outgoing HTTP call the OAuth code makes, as a swappable dependency.
public struct HTTPFetch: Sendable {
    public var send: @Sendable (URLRequest) async throws -> (status: Int, body: Data)

    public init(send: @escaping @Sendable (URLRequest) async throws -> (status: Int, body: Data)) {
        self.send = send
    }

    /// URLSession with a 10 s timeout.
    public static let live = HTTPFetch { request in
        var request = request
        request.timeoutInterval = 10
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// GETs `url` and decodes JSON; non-2xx is an error.
    func json<T: Decodable>(_ type: T.Type, from url: String, bearer: String? = nil) async throws -> T {
        guard let parsed = URL(string: url) else { throw OAuthError.badConfiguration("not a URL: \(url)") }
        var request = URLRequest(url: parsed)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Gatehouse", forHTTPHeaderField: "User-Agent")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (status, body) = try await send(request)
        guard (200..<300).contains(status) else { throw OAuthError.providerHTTP(url: url, status: status) }
        do { return try JSONDecoder().decode(T.self, from: body) } catch {
            throw OAuthError.providerResponse("unreadable JSON from \(url)")
        }
    }
}

/// Why talking to a provider failed; logged with detail, shown to people as one plain message.
public enum OAuthError: Error, Sendable, Equatable {
    case badConfiguration(String)
    case providerHTTP(url: String, status: Int)
    case providerResponse(String)
    case idToken(IDTokenError)
}
