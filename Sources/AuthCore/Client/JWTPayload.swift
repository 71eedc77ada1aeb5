import Foundation

/// The payload of a JWT, read without checking its signature: the server that issued the token
/// checks it on every call; a client reads only what it needs to act in time (`exp`) or to know
/// what the token stands for.
enum JWTPayload {
    /// The payload of `jwt` decoded as `T`, or nil when `jwt` is not a JWT or `T` does not fit.
    static func decode<T: Decodable>(_ type: T.Type, from jwt: String) -> T? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }
}
