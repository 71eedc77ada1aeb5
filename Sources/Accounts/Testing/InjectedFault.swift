import AuthCore
import Foundation
import HTTPServer

/// A fault the test controls put in the way of requests (`POST /_/api/test/faults`): the next
/// `remaining` requests whose method and path match are delayed by `delayMs` and then answered
/// with `status` (and `body`, else the request's API family's own error for that status) instead
/// of reaching their route — or, without a status, reach it late.
public struct InjectedFault: Sendable, Equatable {
    /// How `path` is compared with a request's path.
    public enum PathMatch: String, Sendable, CaseIterable {
        /// The same path.
        case exact
        /// The path and everything under it (`/api/auth` takes `/api/auth/refresh`).
        case prefix
        /// `*` for any run of characters (slashes too), `?` for one.
        case glob
    }

    public let id: String
    /// The method it takes; nil for any.
    public let method: HTTPMethod?
    public let path: String
    public let match: PathMatch
    /// The status it answers; nil to let the request through after the delay.
    public let status: Int?
    /// The body it answers; nil for the API family's own error for `status`.
    public let body: JSONValue?
    public let delayMs: Int
    /// How many more requests it takes before it is spent.
    public internal(set) var remaining: Int
    public let createdAt: Date

    /// Whether a request with this method and path meets the fault.
    func takes(method: HTTPMethod, path: String) -> Bool {
        if let wanted = self.method, wanted != method { return false }
        switch match {
        case .exact: return path == self.path
        case .prefix:
            let base = self.path.hasSuffix("/") ? String(self.path.dropLast()) : self.path
            return path == base || path.hasPrefix(base + "/") || base.isEmpty
        case .glob: return Self.glob(Array(self.path.utf8)[...], Array(path.utf8)[...])
        }
    }

    /// Matches `text` against `pattern` (`*`, `?`), trying each place a star could end.
    private static func glob(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        var (p, t) = (pattern.startIndex, text.startIndex)
        var (star, resume): (Int?, Int) = (nil, 0)
        while t < text.endIndex {
            if p < pattern.endIndex, pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t] {
                (p, t) = (p + 1, t + 1)
            } else if p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") {
                (star, resume, p) = (p, t, p + 1)
            } else if let star {
                resume += 1
                (p, t) = (star + 1, resume)
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.endIndex
    }
}
