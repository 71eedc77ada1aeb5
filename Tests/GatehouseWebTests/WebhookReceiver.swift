import AuthCore
import Foundation
import HTTPServer
import HTTPTestClient
import TestScope

@testable import Accounts

/// A webhook receiver on a loopback port for a test: keeps every request to `/hook` and answers
/// each with the next status of `statuses` (200 once they run out), or a 307 to `/hook` for `/moved`.
final class WebhookReceiver: @unchecked Sendable {
    struct Received: Sendable {
        var headers: HTTPHeaders
        var body: [UInt8]
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
        var type: String? { json["type"] as? String }
        var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
        var id: String? { headers["webhook-id"] }
    }

    private let lock = NSLock()
    private var kept: [Received] = []
    private var statuses: [Int]
    private(set) var peer: LoopbackPeer!

    init(statuses: [Int] = []) throws {
        self.statuses = statuses
        peer = try LoopbackPeer { router in
            router.on(.post, "/hook") { [unowned self] request, _ in
                .empty(status: self.keep(Received(headers: request.headers, body: request.body)))
            }
            router.on(.post, "/moved") { [unowned self] request, _ in
                _ = self.keep(Received(headers: request.headers, body: request.body))
                return .redirect(to: "/hook", status: 307)
            }
        }
    }

    var url: String { "http://127.0.0.1:\(peer.port)/hook" }
    var received: [Received] { lock.withLock { kept } }

    private func keep(_ request: Received) -> Int {
        lock.withLock {
            kept.append(request)
            return statuses.isEmpty ? 200 : statuses.removeFirst()
        }
    }

    /// The requests once `count` arrived, failing after `seconds`.
    func waitFor(_ count: Int, seconds: Double = 10) async throws -> [Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while received.count < count {
            guard Date() < deadline else { throw TestFailure("\(received.count) of \(count) webhooks arrived") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return received
    }

    /// Whether `request` is signed with `secret` as the spec says, under `prefix`'s header names.
    static func verifies(_ request: Received, secret: String, prefix: String = "webhook-") -> Bool {
        let verifier = try? WebhookVerifier(secret: secret)
        return
            (try? verifier?.verify(
                body: request.body, header: { request.headers[$0.replacingOccurrences(of: "webhook-", with: prefix)] })) != nil
    }
}

extension WebhookPolicy {
    /// The test servers' schedule: two retries 50 and 100 ms apart, a short grace and time-out,
    /// other processes' events looked for every 100 ms.
    static let tests = WebhookPolicy(
        retryDelays: [0.05, 0.1], timeout: 2, grace: 0.3, capturedResponseBytes: 1024, allowsAnyHost: false,
        rotationOverlap: 3600, concurrency: 4, otherWritersLook: 0.1)
}
