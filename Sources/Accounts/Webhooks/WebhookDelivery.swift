import Foundation
import Logging
import Secrets
import Store

/// The delivery worker: sends what the outbox holds, at least once, in order per account and
/// endpoint, retrying on the policy's schedule, and reports sessions that expire (`session.ended`).
/// It runs only while deliveries are pending or a session will expire — woken
/// when an act adds some (`nudge`) and at start-up, which sends what a stop or a crash left (each
/// with its `webhook-id` unchanged) — and never on a request's path: a slow receiver delays only
/// its own endpoint's deliveries.
actor WebhookDelivery {
    let database: AppDatabase
    let secrets: WebhookSecrets
    let policy: WebhookPolicy
    let logger: Logger
    private let http: WebhookHTTP
    private var running = false
    /// Set by `stop`: the loop ends and no nudge starts it again.
    private var stopped = false
    private var inFlight: Set<Int64> = []
    /// Set by a nudge that came while the loop was busy; the loop then looks again before waiting.
    private var nudged = false
    private var waiter: CheckedContinuation<Void, Never>?
    /// Counts the loop's waits, so a timer wakes only the wait it was set for.
    private var waits = 0

    init(database: AppDatabase, secrets: WebhookSecrets, policy: WebhookPolicy, logger: Logger) {
        (self.database, self.secrets, self.policy, self.logger) = (database, secrets, policy, logger)
        http = WebhookHTTP(timeout: policy.timeout)
    }

    /// Says the outbox may hold work: starts the loop, or wakes it.
    func nudge() {
        guard !stopped else { return }
        guard running else {
            running = true
            Task { await loop() }
            return
        }
        nudged = true
        waiter?.resume()
        waiter = nil
    }

    /// Ends the loop (tries in flight finish) when the server stops: its database may be gone next.
    public func stop() {
        stopped = true
        waiter?.resume()
        waiter = nil
    }

    private func loop() async {
        defer { running = false }
        while !stopped {
            do {
                let free = policy.concurrency - inFlight.count
                let due =
                    free > 0
                    ? try await database.dueWebhookDeliveries(excluding: inFlight, grace: policy.grace, limit: free) : []
                for delivery in due {
                    inFlight.insert(delivery.id)
                    Task {
                        await self.attempt(delivery)
                        self.finish(delivery.id)
                    }
                }
                if !due.isEmpty { continue }
                let expiry = try await sweepExpiredSessions()
                if expiry.reported { continue }
                let wait = [try await database.secondsUntilNextWebhookDelivery(grace: policy.grace), expiry.wait]
                    .compactMap { $0 }.min()
                if wait == nil, inFlight.isEmpty { return }
                await sleep(upTo: wait ?? 3600)
            } catch {
                // A stop may have come while the outbox was read, its database already gone.
                guard !stopped else { return }
                logger.error("webhook outbox read failed", metadata: ["error": "\(error)"])
                await sleep(upTo: 1)
            }
        }
    }

    /// Notices sessions that reached their end: writes their `session.ended` (`reason` `expired`)
    /// once the first is due; else answers the seconds until it will be (nil: none will, or no
    /// endpoint hears). Expiry is noticed here, on the worker's clock, whether or not anyone
    /// presents the session again.
    private func sweepExpiredSessions() async throws -> (reported: Bool, wait: TimeInterval?) {
        guard let next = try await database.nextSessionExpiry() else { return (false, nil) }
        let now = secrets.clock()
        guard next <= now else { return (false, next.timeIntervalSince(now)) }
        return (try await database.reportExpiredSessions(now: now) > 0, nil)
    }

    /// Waits `seconds`, or less when a nudge comes (or came since the last look).
    private func sleep(upTo seconds: TimeInterval) async {
        if nudged {
            nudged = false
            return
        }
        waits += 1
        let wait = waits
        await withCheckedContinuation { continuation in
            waiter = continuation
            Task {
                try? await Task.sleep(for: .milliseconds(Int(min(max(seconds, 0.001), 86_400) * 1000)))
                self.wake(wait)
            }
        }
        nudged = false
    }

    /// Ends wait number `wait` if the loop is still in it.
    private func wake(_ wait: Int) {
        guard wait == waits, let waiter else { return }
        waiter.resume()
        self.waiter = nil
    }

    private func finish(_ id: Int64) {
        inFlight.remove(id)
        nudge()
    }

    /// One try of `delivery`, kept with its outcome.
    private func attempt(_ delivery: DueWebhookDelivery) async {
        let started = Date()
        var record = WebhookAttemptRecord(
            requestHeaders: [:], requestBody: "", status: nil, responseBody: nil, error: nil, durationMilliseconds: 0,
            at: started)
        do {
            guard let url = URL(string: delivery.endpoint.url) else { throw WebhookEndpointError.badURL }
            let message = try WebhookMessage(delivery, secrets: try secrets.opened(delivery.endpoint), now: started)
            record.requestHeaders = Dictionary(message.headers, uniquingKeysWith: { $1 })
            record.requestBody = String(decoding: message.body, as: UTF8.self)
            let answer = try await http.post(
                url, headers: message.headers, body: message.body, capturedBytes: policy.capturedResponseBytes)
            (record.status, record.responseBody) = (answer.status, answer.body)
        } catch {
            record.error = "\(error)"
        }
        record.durationMilliseconds = max(0, Int(Date().timeIntervalSince(started) * 1000))
        let attempts = delivery.attempts + 1
        let outcome: WebhookAttemptOutcome =
            (200..<300).contains(record.status ?? 0)
            ? .delivered : policy.afterFailure(attempts: attempts).map { .retry(after: $0) } ?? .failed
        do {
            try await database.recordWebhookAttempt(record, of: delivery.id, outcome: outcome)
        } catch {
            logger.error("webhook attempt not recorded", metadata: ["delivery": "\(delivery.id)", "error": "\(error)"])
        }
    }
}
