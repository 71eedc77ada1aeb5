import HTTPServer

extension Response {
    /// This response with `Retry-After` (RFC 9110 §10.2.3): the seconds until a throttled request
    /// may be sent again.
    func retrying(after seconds: Int) -> Response {
        var response = self
        response.headers.replaceOrAdd("Retry-After", String(seconds))
        return response
    }
}
