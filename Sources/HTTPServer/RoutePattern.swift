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

    /// The captured parameters when `path` (decoded segments) matches, else nil.
    func match(_ path: [String]) -> PathParameters? {
        var parameters = PathParameters()
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .wildcard:
                parameters.set("*", path[index...].joined(separator: "/"))
                return parameters
            case .literal(let text):
                guard index < path.count, path[index] == text else { return nil }
            case .parameter(let name):
                guard index < path.count else { return nil }
                parameters.set(name, path[index])
            }
        }
        return segments.count == path.count ? parameters : nil
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
