import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange with a remote backend (PocketBase, InsForge): builds the URL and JSON body,
/// sends, and hands back the status and body. Logs method, path and status at trace level, never
/// bodies or tokens; a transport failure is `AuthError.network`. Each backend maps statuses itself.
struct BackendHTTP: Sendable {
    let baseURL: URL
    let session: URLSession
    let logger: Logger
    /// Names the backend in logs ("PocketBase", "InsForge").
    let name: String

    func exchange(
        _ method: String, _ path: String, query: [URLQueryItem], authorization: String?, body: [String: JSONValue]?
    ) async throws -> (status: Int, data: Data, retryAfter: Int?) {
        guard var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false) else {
            throw AuthError.network("invalid backend URL")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw AuthError.network("invalid backend URL") }
        var request = URLRequest(url: url, timeoutInterval: 15)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            logger.warning("\(name) unreachable", metadata: ["method": "\(method)", "path": "\(path)", "error": "\(error)"])
            throw AuthError.network(error)
        }
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        logger.trace("\(name) call", metadata: ["method": "\(method)", "path": "\(path)", "status": "\(status)"])
        return (status, data, http?.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) })
    }
}
