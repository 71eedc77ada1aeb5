/// Turns a request into a response; the server's only view of the application.
public typealias Responder = @Sendable (Request) async -> Response

/// Renders a client error the server answers before any responder runs (malformed target,
/// ambiguous framing, a body too large), given the raw path as sent; the server's default is
/// plain text.
public typealias RejectionRenderer = @Sendable (_ status: Int, _ message: String, _ rawPath: String) -> Response
