import Logging

/// Maps method + path to handlers: literal segments beat `:parameters`, which beat a trailing
/// `*`. Unknown paths get 404, known paths with another method 405 with `Allow`; HEAD falls
/// back to GET. Handler errors become responses here (see `respond(to:)`).
public struct Router: Sendable {
    /// Handles one request; may throw `RequestError` (its status) or anything else (500).
    public typealias Handler = @Sendable (Request, PathParameters) async throws -> Response
    /// Renders an error page for a status and a user-facing message.
    public typealias ErrorRenderer = @Sendable (_ status: Int, _ message: String) -> Response

    private struct Route: Sendable {
        let method: HTTPMethod
        let pattern: RoutePattern
        let handler: Handler
    }

    /// A path prefix whose routes, and whose unknown paths and wrong methods, answer errors in
    /// their own shape (an API family's JSON envelope) instead of the router's default.
    private struct ErrorFamily: Sendable {
        let prefix: [String]
        let renderer: ErrorRenderer
    }

    private var routes: [Route] = []
    /// Which routes can match a path, by method and first segment, so a request is not matched
    /// against every route (`bestMatch`).
    private var candidates = RouteCandidates()
    private var families: [ErrorFamily] = []
    private let logger: Logger
    /// Renders 404, 405, `RequestError` and 500 pages outside every error family; plain text by default.
    public var errorRenderer: ErrorRenderer

    public init(
        logger: Logger = Logger(label: "gatehouse.http.router"),
        errorRenderer: @escaping ErrorRenderer = Router.plainTextError
    ) {
        self.logger = logger
        self.errorRenderer = errorRenderer
    }

    /// The default error page: the message as `text/plain`.
    public static let plainTextError: ErrorRenderer = { status, message in
        .text(message + "\n", status: status)
    }

    /// Registers `handler` for `method` on `path`; a later registration of the same pair replaces it.
    public mutating func on(_ method: HTTPMethod, _ path: String, _ handler: @escaping Handler) {
        let pattern = RoutePattern(path)
        let count = routes.count
        routes.removeAll { $0.method == method && $0.pattern == pattern }
        routes.append(Route(method: method, pattern: pattern, handler: handler))
        if routes.count > count {
            candidates.add(count, method, pattern)
        } else {
            candidates = RouteCandidates(routes.map { ($0.method, $0.pattern) })
        }
    }

    /// Everything under `prefix` (e.g. `/api/auth`) renders its errors with `renderer`: handler
    /// errors, body-decoding errors, and 404/405 for paths and methods no route has. The longest
    /// matching prefix wins, so `/api/auth` can differ from the rest of `/api`.
    public mutating func errors(under prefix: String, _ renderer: @escaping ErrorRenderer) {
        let segments = prefix.split(separator: "/").map(String.init)
        families.removeAll { $0.prefix == segments }
        families.append(ErrorFamily(prefix: segments, renderer: renderer))
    }

    /// The renderer for `request`: its longest matching error family's, else the default.
    private func renderer(for request: Request) -> ErrorRenderer {
        renderer(forSegments: request.pathSegments)
    }

    private func renderer(forSegments segments: [String]) -> ErrorRenderer {
        families.filter { segments.starts(with: $0.prefix) }
            .max { $0.prefix.count < $1.prefix.count }?.renderer ?? errorRenderer
    }

    /// Renders the errors the server answers before routing (a malformed target, ambiguous framing,
    /// a body too large) in the shape of the family whose prefix the raw path starts with, so an
    /// API's clients get its envelope even for a request no handler could read.
    public var rejectionRenderer: RejectionRenderer {
        let router = self
        return { status, message, rawPath in
            router.renderer(forSegments: rawPath.split(separator: "/").map(String.init))(status, message)
        }
    }

    public mutating func get(_ path: String, _ handler: @escaping Handler) { on(.get, path, handler) }
    public mutating func post(_ path: String, _ handler: @escaping Handler) { on(.post, path, handler) }
    public mutating func put(_ path: String, _ handler: @escaping Handler) { on(.put, path, handler) }
    public mutating func patch(_ path: String, _ handler: @escaping Handler) { on(.patch, path, handler) }
    public mutating func delete(_ path: String, _ handler: @escaping Handler) { on(.delete, path, handler) }

    /// The best route for the request's method and path (HEAD uses GET's when it has none).
    public func route(_ request: Request) -> RouteMatch? {
        if let match = bestMatch(method: request.method, segments: request.pathSegments) {
            return match
        }
        return request.method == .head ? bestMatch(method: .get, segments: request.pathSegments) : nil
    }

    /// Runs the matching handler and turns every failure into a response: an `HTTPResponseError` into
    /// its status and message, anything else into a logged, plain 500 that hides the error.
    /// For HEAD the GET response is returned whole; the server never transmits a HEAD body, so
    /// `Content-Length` still tells the GET length (RFC 9110 §9.3.2).
    public func respond(to request: Request) async -> Response {
        await respondNamingRoute(to: request).response
    }

    /// `respond(to:)`, and the pattern of the route that answered (nil when none did).
    public func respondNamingRoute(to request: Request) async -> (response: Response, route: String?) {
        guard let match = route(request) else {
            return (unrouted(request), nil)
        }
        return (await run(match, request), match.pattern)
    }

    private func run(_ match: RouteMatch, _ request: Request) async -> Response {
        do {
            return try await match.handler(request, match.parameters)
        } catch let error as any HTTPResponseError {
            return renderer(for: request)(error.status, error.message)
        } catch {
            logger.error(
                "handler failed",
                metadata: [
                    "method": "\(request.method)",
                    "path": "\(request.path)",
                    "route": "\(match.pattern)",
                    "error": "\(String(reflecting: error))"
                ])
            return renderer(for: request)(500, "Internal Server Error")
        }
    }

    /// This router as the server's responder.
    public var responder: Responder {
        { request in await self.respond(to: request) }
    }

    private func bestMatch(method: HTTPMethod, segments: [String]) -> RouteMatch? {
        var best: Int?
        for index in candidates.routes(for: method, firstSegment: segments.first) where routes[index].pattern.matches(segments) {
            if let current = best, !routes[index].pattern.isMoreSpecific(than: routes[current].pattern) { continue }
            best = index
        }
        guard let best, let parameters = routes[best].pattern.match(segments) else { return nil }
        return RouteMatch(pattern: routes[best].pattern.description, parameters: parameters, handler: routes[best].handler)
    }

    /// 404 when no route has this path; otherwise 405 (or 204 for OPTIONS) with `Allow`.
    private func unrouted(_ request: Request) -> Response {
        var allowed = Set(routes.filter { $0.pattern.matches(request.pathSegments) }.map(\.method))
        guard !allowed.isEmpty else {
            return renderer(for: request)(404, "Not Found")
        }
        if allowed.contains(.get) { allowed.insert(.head) }
        allowed.insert(.options)
        let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        if request.method == .options {
            return Response(status: 204, headers: ["Allow": allow])
        }
        var response = renderer(for: request)(405, "Method Not Allowed")
        response.headers.replaceOrAdd("Allow", allow)
        return response
    }
}
