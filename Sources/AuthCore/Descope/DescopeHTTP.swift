import Foundation

/// JSON over HTTP to one Descope project (`/v1/…`; paths here start at `auth/`), as Descope's SDKs
/// call it: every request names the project in `Authorization: Bearer <projectId>`, and calls made
/// for a signed-in person add the refresh JWT (`Bearer <projectId>:<refreshJwt>`). Descope's error
/// body `{errorCode, errorDescription, errorMessage}` becomes the nearest `AuthError`.
struct DescopeHTTP: Sendable {
    let transport: BackendHTTP
    let projectID: String

    /// Sends a request and returns the body of a 2xx answer. POSTs always carry a body (`{}` when
    /// there is nothing to say), as the SDKs send. A sign-in refused for its second step throws
    /// `SecondStepOwed` naming `loginID`, which completes it (`totp/verify {loginId, code}`).
    @discardableResult
    func send(
        _ method: String, _ path: String, refreshJwt: String? = nil, body: [String: JSONValue]? = nil,
        secondStepFor loginID: String? = nil
    ) async throws -> Data {
        let authorization = refreshJwt.map { "Bearer \(projectID):\($0)" } ?? "Bearer \(projectID)"
        let (status, data, retryAfter) = try await transport.exchange(
            method, "v1/" + path, query: [], authorization: authorization, body: method == "GET" ? nil : body ?? [:])
        guard (200..<300).contains(status) else {
            if status == 403, let loginID,
                (try? JSONDecoder().decode(Envelope.self, from: data))?.errorDescription == "Second step required"
            {
                throw SecondStepOwed(challenge: MFAChallenge(id: loginID, methods: [.totp], expiresAt: nil))
            }
            throw Self.error(status: status, body: data, retryAfter: retryAfter, loginID: loginID)
        }
        return data
    }

    /// Sends a request and decodes its JSON answer.
    func json<T: Decodable>(
        _ type: T.Type, _ method: String, _ path: String, refreshJwt: String? = nil, body: [String: JSONValue]? = nil,
        secondStepFor loginID: String? = nil
    ) async throws -> T {
        let data = try await send(method, path, refreshJwt: refreshJwt, body: body, secondStepFor: loginID)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw AuthError.server(status: 502, code: "bad_response", message: "Descope answered \(path) with unexpected JSON.")
        }
    }

    private struct Envelope: Decodable {
        var errorCode: String?
        var errorDescription: String?
        var errorMessage: String?
    }

    /// Descope's codes as its SDKs name them, and those Gatehouse's Descope API answers where
    /// Descope publishes none (README, "Descope-compatible API").
    static func error(status: Int, body: Data, retryAfter: Int?, loginID: String?) -> AuthError {
        let envelope = try? JSONDecoder().decode(Envelope.self, from: body)
        let code = envelope?.errorCode ?? ""
        let message = envelope?.errorMessage.flatMap { $0.isEmpty ? nil : $0 } ?? envelope?.errorDescription ?? ""
        switch (status, code) {
        case (_, "E062801"): return .invalidCredentials
        case (_, "E061102"): return .invalidCode
        case (_, "E061103"), (429, _): return .rateLimited(retryAfter: retryAfter ?? 60)
        case (_, "E063003"): return .emailExists
        case (_, "E062108"): return .userNotFound
        case (400, "E011002"), (400, "E011004"): return .validation([FieldError(field: "form", message: message)])
        case (401, _): return .sessionExpired
        case (403, _) where envelope?.errorDescription == "Email not verified":
            return .emailNotVerified(email: loginID ?? "")
        default:
            return .server(status: status, code: code.isEmpty ? "descope_\(status)" : code, message: message)
        }
    }
}

/// Descope's `JWTResponse` as the backend reads it (`firstSeen` and the cookie fields are the app's).
struct DescopeJWTResponse: Decodable {
    var sessionJwt: String?
    var refreshJwt: String?
    var user: DescopeUserBody?
}

/// A Descope user (`GET auth/me`, and `user` in a `JWTResponse`) as the seam's `User`: Descope
/// keeps the name and picture beside the custom attributes; the profile holds all three, as
/// Gatehouse's does. Also whether an authenticator app is on, and the linked providers.
struct DescopeUserBody: Decodable {
    let user: User
    let totp: Bool
    let providers: [String]

    private enum Key: String, CodingKey {
        case userId, loginIds, status, createdTime, email, verifiedEmail, name, picture, TOTP, OAuth, customAttributes
    }

    init(from decoder: Decoder) throws {
        let json = try decoder.container(keyedBy: Key.self)
        var fields = try json.decodeIfPresent([String: JSONValue].self, forKey: .customAttributes) ?? [:]
        for (key, field) in [(Key.name, "name"), (.picture, "avatar_url")] {
            if let text = try json.decodeIfPresent(String.self, forKey: key), !text.isEmpty { fields[field] = .string(text) }
        }
        let created = Date(timeIntervalSince1970: try json.decodeIfPresent(Double.self, forKey: .createdTime) ?? 0)
        let loginIDs = try json.decodeIfPresent([String].self, forKey: .loginIds) ?? []
        user = User(
            id: UserID(try json.decode(String.self, forKey: .userId)),
            email: try json.decodeIfPresent(String.self, forKey: .email) ?? loginIDs.first ?? "",
            emailVerified: try json.decodeIfPresent(Bool.self, forKey: .verifiedEmail) ?? false, profile: Profile(fields),
            disabled: try json.decodeIfPresent(String.self, forKey: .status) == "disabled", createdAt: created,
            updatedAt: created)
        totp = try json.decodeIfPresent(Bool.self, forKey: .TOTP) ?? false
        providers = (try json.decodeIfPresent([String: Bool].self, forKey: .OAuth) ?? [:]).filter(\.value).keys.sorted()
    }
}
