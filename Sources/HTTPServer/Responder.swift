/// Turns a request into a response; the server's only view of the application.
public typealias Responder = @Sendable (Request) async -> Response
