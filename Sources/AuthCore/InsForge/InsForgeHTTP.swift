import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// JSON over HTTP to one InsForge server (`/api/auth`). Logs method, path and status at trace level,
/// never bodies or tokens. Transport failures become `AuthError.network`; InsForge's error envelope
/// `{error, message, statusCode}` becomes the nearest `AuthError`.
struct InsForgeHTTP: Sendable {
    let transport: BackendHTTP
    let anonKey: String

    init(baseURL: URL, anonKey: String, session: URLSession, logger: Logger) {
        transport = BackendHTTP(baseURL: baseURL, session: session, logger: logger, name: "InsForge")
        self.anonKey = anonKey
    }

    /// Sends a request (as `bearer`, else with the anon key) and returns the body of a 2xx answer.
    @discardableResult
    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], bearer: String? = nil, body: [String: JSONValue]? = nil
    ) async throws -> Data {
        let (status, data, retryAfter) = try await transport.exchange(
            method, path, query: query, authorization: "Bearer \(bearer ?? anonKey)", body: body)
        guard (200..<300).contains(status) else { throw Self.error(status: status, body: data, retryAfter: retryAfter) }
        return data
    }

    /// Sends a request and decodes a JSON answer (ISO-8601 dates, with or without fractions).
    func json<T: Decodable>(
        _ type: T.Type, _ method: String, _ path: String, query: [URLQueryItem] = [], bearer: String? = nil,
        body: [String: JSONValue]? = nil
    ) async throws -> T {
        let data = try await send(method, path, query: query, bearer: bearer, body: body)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) {
                return date
            }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not ISO-8601: \(text)"))
        }
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw AuthError.server(status: 502, code: "bad_response", message: "InsForge answered \(path) with unexpected JSON.")
        }
    }

    private struct Envelope: Decodable {
        var error: String?
        var message: String?
    }

    static func error(status: Int, body: Data, retryAfter: Int?) -> AuthError {
        let envelope = try? JSONDecoder().decode(Envelope.self, from: body)
        let code = envelope?.error ?? ""
        let message = envelope?.message ?? "InsForge answered \(status)."
        switch (status, code) {
        case (401, _): return .sessionExpired
        case (403, "FORBIDDEN"): return .emailNotVerified(email: "")
        case (404, _): return .userNotFound
        case (409, _): return .emailExists
        case (400, "AUTH_INVALID_OTP"): return message.contains("expired") ? .codeExpired : .invalidCode
        case (400, _): return .validation([FieldError(field: "form", message: message)])
        case (429, _): return .rateLimited(retryAfter: retryAfter ?? 60)
        case (501, _): return .server(status: 501, code: code, message: message)
        default: return .server(status: status, code: code.isEmpty ? "insforge_\(status)" : code, message: message)
        }
    }
}

/// InsForge's wire shapes the backend reads.
struct InsForgeAuthReply: Decodable {
    struct UserBody: Decodable {
        var id: String
        var email: String
        var emailVerified: Bool?
        var providers: [String]?
        var createdAt: Date?
        var updatedAt: Date?
        var profile: [String: JSONValue]?

        var user: User {
            User(
                id: UserID(id), email: email, emailVerified: emailVerified ?? false, profile: Profile(profile ?? [:]),
                createdAt: createdAt ?? Date(timeIntervalSince1970: 0),
                updatedAt: updatedAt ?? createdAt ?? Date(timeIntervalSince1970: 0))
        }
    }

    var user: UserBody?
    var accessToken: String?
    var refreshToken: String?
    var requireEmailVerification: Bool?
}
