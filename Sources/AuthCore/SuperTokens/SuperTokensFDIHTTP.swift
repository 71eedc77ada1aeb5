import Foundation

/// JSON over HTTP to a SuperTokens Frontend Driver Interface (an app's backend, or Gatehouse's own
/// FDI), as a mobile frontend SDK calls it: header mode (`st-auth-mode: header`), so the tokens come
/// back in `st-access-token`, `st-refresh-token` and `front-token` and go out as
/// `Authorization: Bearer`; each call names its recipe in `rid` and the FDI versions it speaks.
/// Business outcomes are HTTP 200 with a `status` the calls read; HTTP refusals (`{message}`)
/// become the nearest `AuthError`.
struct SuperTokensFDIHTTP: Sendable {
    /// The FDI versions this client is written against (`fdi-version`).
    static let versions = "3.0,3.1,4.0,4.1"

    let transport: BackendHTTP
    /// `apiBasePath` without slashes at either end ("" for the root).
    let basePath: String

    /// An FDI answer: its JSON object, and the session headers it set.
    struct Reply: Sendable {
        var body: [String: JSONValue]
        var headers: [String: String]

        var status: String? { body["status"]?.stringValue }
        var accessToken: String? { headers["st-access-token"].flatMap { $0.isEmpty ? nil : $0 } }
        var refreshToken: String? { headers["st-refresh-token"].flatMap { $0.isEmpty ? nil : $0 } }

        /// The answer when its `status` is `OK`; any other status as the seam's nearest error.
        @discardableResult
        func ok() throws -> Reply {
            guard let status, status != "OK" else { return self }
            throw SuperTokensFDIHTTP.error(status: status, body: body)
        }
    }

    /// Sends a request (as `bearer` when given) and returns a 2xx answer. POSTs always carry a JSON
    /// body (`{}` when there is nothing to say).
    @discardableResult
    func call(
        _ method: String, _ path: String, rid: String, query: [URLQueryItem] = [], bearer: String? = nil,
        body: [String: JSONValue]? = nil
    ) async throws -> Reply {
        var headers = ["rid": rid, "fdi-version": Self.versions, "st-auth-mode": "header"]
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        let full = basePath.isEmpty ? path : basePath + "/" + path
        let reply = try await transport.send(
            method, full, query: query, headers: headers, body: method == "GET" ? nil : body ?? [:])
        let json: [String: JSONValue]
        switch try? JSONDecoder().decode(JSONValue.self, from: reply.data) {
        case .object(let object)?: json = object
        default: json = [:]
        }
        guard (200..<300).contains(reply.status) else {
            throw Self.refusal(status: reply.status, message: json["message"]?.stringValue ?? "", retryAfter: reply.retryAfter)
        }
        return Reply(body: json, headers: reply.headers)
    }

    /// An HTTP refusal: a 401 (`try refresh token`, `unauthorised`, `token theft detected`) means the
    /// session is gone for this client, which refreshes ahead of expiry itself.
    static func refusal(status: Int, message: String, retryAfter: Int?) -> AuthError {
        switch status {
        case 401: return .sessionExpired
        case 429: return .rateLimited(retryAfter: retryAfter ?? 60)
        case 400: return .validation([FieldError(field: "form", message: message)])
        default: return .server(status: status, code: "supertokens_\(status)", message: message)
        }
    }

    /// A `status` other than `OK`, by the recipes' names.
    static func error(status: String, body: [String: JSONValue]) -> AuthError {
        switch status {
        case "WRONG_CREDENTIALS_ERROR": return .invalidCredentials
        case "INCORRECT_USER_INPUT_CODE_ERROR", "INVALID_TOTP_ERROR", "RESTART_FLOW_ERROR",
            "EMAIL_VERIFICATION_INVALID_TOKEN_ERROR", "RESET_PASSWORD_INVALID_TOKEN_ERROR":
            return .invalidCode
        case "EXPIRED_USER_INPUT_CODE_ERROR", "UNKNOWN_DEVICE_ERROR": return .codeExpired
        case "LIMIT_REACHED_ERROR":
            let milliseconds = body["retryAfterMs"].flatMap { if case .number(let ms) = $0 { ms } else { nil } } ?? 60_000
            return .rateLimited(retryAfter: max(1, Int((milliseconds / 1000).rounded(.up))))
        case "FIELD_ERROR": return fieldError(body)
        default:
            let message = body["message"]?.stringValue ?? body["reason"]?.stringValue ?? status
            return .server(status: 400, code: status, message: message)
        }
    }

    /// `FIELD_ERROR`'s `formFields` as the seam's field errors; a taken address is `.emailExists`.
    private static func fieldError(_ body: [String: JSONValue]) -> AuthError {
        guard case .array(let fields)? = body["formFields"] else { return .validation([]) }
        let errors = fields.compactMap { field -> FieldError? in
            guard case .object(let item) = field, let id = item["id"]?.stringValue else { return nil }
            return FieldError(field: id, message: item["error"]?.stringValue ?? "")
        }
        if errors.contains(where: { $0.field == "email" && $0.message.lowercased().contains("already exists") }) {
            return .emailExists
        }
        return .validation(errors)
    }
}
