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
    /// Split as UTF-8 bytes (`/`, `?` and `&` are ASCII): splitting the `String` walked grapheme
    /// clusters, on every request.
    init(parsing target: String) throws(RequestError) {
        let utf8 = target.utf8
        guard utf8.first == UInt8(ascii: "/") else { throw .malformedTarget }
        let mark = utf8.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = Substring(utf8[..<(mark ?? utf8.endIndex)])
        let rawQuery = mark.map { Substring(utf8[utf8.index(after: $0)...]) } ?? ""
        guard !rawPath.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .malformedTarget }
        var segments: [String] = []
        for segment in rawPath.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            segments.append(try PercentDecoding.decode(Substring(segment), plusAsSpace: false))
        }
        self.rawPath = String(rawPath)
        self.path = try PercentDecoding.decode(rawPath, plusAsSpace: false)
        self.segments = segments
        self.query = try PercentDecoding.parsePairs(rawQuery)
    }
}
