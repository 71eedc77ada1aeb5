import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange with a remote backend (PocketBase, InsForge, Descope, SuperTokens): builds the URL and JSON body,
/// sends, and hands back the status and body. Logs method, path and status at trace level, never
/// bodies or tokens; a transport failure is `AuthError.network`. Each backend maps statuses itself.
struct BackendHTTP: Sendable {
    let baseURL: URL
    let session: URLSession
    let logger: Logger
    /// Names the backend in logs ("PocketBase", "SuperTokens").
    let name: String

    /// A backend's answer, with its headers for the backends that carry tokens in them (SuperTokens').
    struct Reply: Sendable {
        var status: Int
        var data: Data
        var retryAfter: Int?
        /// The answer's headers by lower-cased name.
        var headers: [String: String]
    }

    func exchange(
        _ method: String, _ path: String, query: [URLQueryItem], authorization: String?, body: [String: JSONValue]?
    ) async throws -> (status: Int, data: Data, retryAfter: Int?) {
        let reply = try await send(
            method, path, query: query, headers: authorization.map { ["Authorization": $0] } ?? [:], body: body)
        return (reply.status, reply.data, reply.retryAfter)
    }

    /// Sends `headers` beside the JSON ones and returns the whole answer.
    func send(
        _ method: String, _ path: String, query: [URLQueryItem], headers: [String: String], body: [String: JSONValue]?
    ) async throws -> Reply {
        guard var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false) else {
            throw AuthError.network("invalid backend URL")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw AuthError.network("invalid backend URL") }
        var request = URLRequest(url: url, timeoutInterval: 15)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
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
        var answered: [String: String] = [:]
        for case (let name as String, let value as String) in http?.allHeaderFields ?? [:] {
            answered[name.lowercased()] = value
        }
        return Reply(
            status: status, data: data, retryAfter: http?.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) },
            headers: answered)
    }
}
