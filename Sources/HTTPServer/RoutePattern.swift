/// A parsed route path such as `/users/:id` or `/static/*`.
struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    /// One segment of a pattern; the order of cases is also their precedence.
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case wildcard

        var rank: Int {
            switch self {
            case .literal: 0
            case .parameter: 1
            case .wildcard: 2
            }
        }
    }

    let segments: [Segment]
    let description: String

    /// Parses `path`; `*` is only allowed as the last segment.
    init(_ path: String) {
        var segments: [Segment] = []
        let pieces = path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, piece) in pieces.enumerated() {
            if piece == "*" {
                precondition(index == pieces.count - 1, "'*' must be the last segment of route \(path)")
                segments.append(.wildcard)
            } else if piece.hasPrefix(":"), piece.count > 1 {
                segments.append(.parameter(String(piece.dropFirst())))
            } else {
                segments.append(.literal(String(piece)))
            }
        }
        self.segments = segments
        self.description = path
    }

    /// Whether `path` (decoded segments) matches, capturing nothing (routing tries several
    /// patterns per request and captures only the winner's parameters).
    func matches(_ path: [String]) -> Bool {
        let isOpen = segments.last == .wildcard
        guard isOpen ? path.count >= segments.count - 1 : path.count == segments.count else { return false }
        for (index, segment) in segments.enumerated() {
            if case .literal(let text) = segment, path[index] != text { return false }
        }
        return true
    }

    /// The captured parameters when `path` (decoded segments) matches, else nil.
    func match(_ path: [String]) -> PathParameters? {
        guard matches(path) else { return nil }
        var parameters = PathParameters()
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .wildcard: parameters.set("*", path[index...].joined(separator: "/"))
            case .parameter(let name): parameters.set(name, path[index])
            case .literal: break
            }
        }
        return parameters
    }

    /// Whether this pattern should win over `other` when both match: the first differing
    /// segment decides, literal over parameter over wildcard; then the longer pattern wins.
    func isMoreSpecific(than other: RoutePattern) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) where mine.rank != theirs.rank {
            return mine.rank < theirs.rank
        }
        return segments.count > other.segments.count
    }
}
