/// The route chosen for a request: its pattern, captured parameters and handler.
public struct RouteMatch: Sendable {
    /// The pattern as registered, e.g. `/users/:id` (useful for logs and metrics).
    public let pattern: String
    public let parameters: PathParameters
    let handler: Router.Handler
}
