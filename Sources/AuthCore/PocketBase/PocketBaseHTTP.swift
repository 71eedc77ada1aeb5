import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// JSON over HTTP to one PocketBase server. Logs method, path and status at trace level; never
/// bodies, tokens or passwords. Transport failures become `AuthError.network`, PocketBase's error
/// envelope `{status, message, data: {field: {code, message}}}` becomes the nearest `AuthError`
/// (`SecondStepOwed` for a sign-in that must go on to a second method).
struct PocketBaseHTTP: Sendable {
    /// Which call failed, so a 400 or 404 maps to the error that call means.
    enum Call: Sendable {
        case signIn, signUp, verify, ownRecord, adminRecord, other
    }

    let transport: BackendHTTP
    var logger: Logger { transport.logger }

    init(baseURL: URL, session: URLSession, logger: Logger) {
        transport = BackendHTTP(baseURL: baseURL, session: session, logger: logger, name: "PocketBase")
    }

    /// Sends a request and returns the body of a 2xx answer.
    @discardableResult
    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], token: String? = nil,
        body: [String: JSONValue]? = nil, call: Call = .other
    ) async throws -> Data {
        let (status, data, retryAfter) = try await transport.exchange(
            method, path, query: query, authorization: token, body: body)
        guard (200..<300).contains(status) else {
            // A first sign-in method on a collection with MFA on: `{"mfaId": …}`.
            if status == 401, let mfa = try? JSONDecoder().decode(MFAReply.self, from: data) {
                throw SecondStepOwed(challenge: MFAChallenge(id: mfa.mfaId, methods: [.emailOTP], expiresAt: nil))
            }
            let error = Self.error(status: status, body: data, call: call, retryAfter: retryAfter)
            logger.debug("PocketBase refused", metadata: ["path": "\(path)", "status": "\(status)", "error": "\(error)"])
            throw error
        }
        return data
    }

    /// Sends a request and decodes a JSON answer.
    func json<T: Decodable>(
        _ type: T.Type, _ method: String, _ path: String, query: [URLQueryItem] = [],
        token: String? = nil, body: [String: JSONValue]? = nil, call: Call = .other
    ) async throws -> T {
        let data = try await send(method, path, query: query, token: token, body: body, call: call)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw AuthError.server(
                status: 502, code: "bad_response", message: "PocketBase answered \(path) with unexpected JSON.")
        }
    }

    /// PocketBase's answer when a second sign-in method must follow.
    private struct MFAReply: Decodable { var mfaId: String }

    /// PocketBase's error envelope.
    private struct Envelope: Decodable {
        struct Field: Decodable {
            var code: String?
            var message: String?
        }
        var status: Int?
        var message: String?
        var data: [String: Field]?
    }

    static func error(status: Int, body: Data, call: Call, retryAfter: Int?) -> AuthError {
        let envelope = try? JSONDecoder().decode(Envelope.self, from: body)
        let message = envelope?.message ?? "PocketBase answered \(status)."
        let fields = envelope?.data ?? [:]
        switch status {
        case 400:
            if call == .signIn { return .invalidCredentials }
            if call == .verify || fields["token"] != nil { return .invalidCode }
            if fields["email"]?.code == "validation_not_unique" { return .emailExists }
            if !fields.isEmpty {
                return .validation(
                    fields.sorted { $0.key < $1.key }.map { name, field in
                        FieldError(
                            field: name == "passwordConfirm" ? "password" : name,
                            message: field.message ?? "This value is not accepted.")
                    })
            }
            return .server(status: 400, code: "bad_request", message: message)
        case 401:
            return .sessionExpired
        case 403 where call == .signIn:
            // PocketBase with "only verified" sign-in (and Gatehouse's own API) refuses unverified accounts so.
            return .emailNotVerified(email: "")
        case 403 where call == .ownRecord, 404 where call == .ownRecord:
            return .sessionExpired
        case 404 where call == .adminRecord:
            return .userNotFound
        case 429:
            return .rateLimited(retryAfter: retryAfter ?? 60)
        default:
            return .server(status: status, code: "pocketbase_\(status)", message: message)
        }
    }
}
