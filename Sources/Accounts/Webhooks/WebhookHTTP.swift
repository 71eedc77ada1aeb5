import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one outgoing call of webhooks: a POST through Foundation's URLSession (libcurl on Linux,
/// which the static release binary links as the OAuth calls do), with a time-out, no redirect
/// followed (a 3xx is the answer, and a failed try), and the answer's first bytes kept.
struct WebhookHTTP: Sendable {
    /// What came back: the status and the body's first `capturedBytes` bytes as text.
    struct Answer: Sendable {
        var status: Int
        var body: String
    }

    private let session: URLSession

    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    /// POSTs `body` with `headers` to `url`; throws when no answer came (refused, timed out).
    func post(_ url: URL, headers: [(String, String)], body: [UInt8], capturedBytes: Int) async throws -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = Data(body)
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return Answer(status: status, body: String(decoding: data.prefix(capturedBytes), as: UTF8.self))
    }
}

/// Answers every redirect with "don't follow": the 3xx itself is the response.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
