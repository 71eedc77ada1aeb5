import Foundation

extension Request {
    /// Decodes a JSON body; the `Content-Type` must be `application/json` or `…+json`.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self) throws(RequestError) -> T {
        guard declaresJSON else { throw .unsupportedMediaType }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(JSONDates.decode)
        do {
            return try decoder.decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw .invalidJSON(Self.reason(for: error))
        } catch {
            throw .invalidJSON("unreadable body")
        }
    }

    /// A short reason naming the field, without echoing the client's data.
    private static func reason(for error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "body" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "missing field \(parent == "body" ? key.stringValue : parent + "." + key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type for \(path(context))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "invalid value for \(path(context))"
        @unknown default:
            return "not valid JSON"
        }
    }
}
