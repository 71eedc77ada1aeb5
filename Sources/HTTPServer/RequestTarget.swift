/// The request-target of an HTTP/1.1 request line, split and strictly decoded.
struct RequestTarget: Sendable, Equatable {
    /// The path as received, percent-encoding intact.
    let rawPath: String
    /// The fully decoded path.
    let path: String
    /// Decoded segments, split on the *raw* `/` so an encoded `%2F` stays inside its segment.
    let segments: [String]
    /// Decoded query parameters, duplicates kept.
    let query: Parameters

    /// Parses an origin-form target (`/path?query`); anything else is rejected (RFC 9112 §3.2).
    init(parsing target: String) throws(RequestError) {
        guard target.utf8.first == UInt8(ascii: "/") else { throw .malformedTarget }
        let rawPath: Substring
        let rawQuery: Substring
        if let mark = target.firstIndex(of: "?") {
            rawPath = target[..<mark]
            rawQuery = target[target.index(after: mark)...]
        } else {
            rawPath = target[...]
            rawQuery = ""
        }
        guard !rawPath.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .malformedTarget }
        var segments: [String] = []
        for segment in rawPath.split(separator: "/", omittingEmptySubsequences: true) {
            segments.append(try PercentDecoding.decode(segment, plusAsSpace: false))
        }
        self.rawPath = String(rawPath)
        self.path = try PercentDecoding.decode(rawPath, plusAsSpace: false)
        self.segments = segments
        self.query = try PercentDecoding.parsePairs(rawQuery)
    }
}
