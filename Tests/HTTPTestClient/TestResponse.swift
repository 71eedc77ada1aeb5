import Foundation

/// A parsed HTTP response as a test sees it.
public struct TestResponse: Sendable {
    public let status: Int
    /// Header fields in order, names as sent.
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first value of `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headerValues(name).first
    }

    /// Every value of `name` (case-insensitive), in order.
    public func headerValues(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.0.lowercased() == wanted }.map(\.1)
    }

    /// `Set-Cookie` name → value (attributes dropped; a later field for the same name wins).
    public var setCookies: [String: String] {
        var cookies: [String: String] = [:]
        for line in headerValues("Set-Cookie") {
            if let cookie = SetCookieLine(line) {
                cookies[cookie.name] = cookie.value
            }
        }
        return cookies
    }
}

/// The parts of one `Set-Cookie` value a test client needs.
struct SetCookieLine {
    let name: String
    let value: String
    /// True for `Max-Age=0` or a negative Max-Age: the server deletes the cookie.
    let deletes: Bool

    init?(_ line: String) {
        let parts = line.split(separator: ";")
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return nil }
        name = first[..<equals].trimmingCharacters(in: .whitespaces)
        value = first[first.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        deletes = parts.dropFirst().contains { attribute in
            let pair = attribute.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "max-age", let seconds = Int(pair[1]) else { return false }
            return seconds <= 0
        }
    }
}
