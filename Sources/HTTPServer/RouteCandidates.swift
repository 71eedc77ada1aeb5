/// The routes that can match a path, found without trying every route: a route whose first
/// segment is a literal matches only paths that start with it; the others (a first `:parameter`
/// or `*`, or the root) can match any path. Kept as indices into the router's routes, ascending
/// (registration order, so the router's tie-break — the first registered wins — is unchanged), one
/// ready list per method and first segment, so a request allocates nothing to find them.
struct RouteCandidates: Sendable {
    /// Per method and literal first segment: those routes and every route of `anyFirstSegment`.
    private var byFirstSegment: [HTTPMethod: [String: [Int]]] = [:]
    private var anyFirstSegment: [HTTPMethod: [Int]] = [:]

    init(_ routes: [(method: HTTPMethod, pattern: RoutePattern)] = []) {
        for (index, route) in routes.enumerated() { add(index, route.method, route.pattern) }
    }

    /// Adds the route at `index`, which must be above every index added before.
    mutating func add(_ index: Int, _ method: HTTPMethod, _ pattern: RoutePattern) {
        if case .literal(let first)? = pattern.segments.first {
            byFirstSegment[method, default: [:]][first, default: anyFirstSegment[method] ?? []].append(index)
        } else {
            anyFirstSegment[method, default: []].append(index)
            for first in byFirstSegment[method]?.keys.map({ $0 }) ?? [] {
                byFirstSegment[method]?[first]?.append(index)
            }
        }
    }

    /// The indices of the `method` routes that can match a path starting with `firstSegment`, ascending.
    func routes(for method: HTTPMethod, firstSegment: String?) -> [Int] {
        firstSegment.flatMap { byFirstSegment[method]?[$0] } ?? anyFirstSegment[method] ?? []
    }
}
