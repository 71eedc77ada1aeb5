import Foundation
import Logging
import Secrets
import Store

/// The delivery worker: sends what the outbox holds, at least once, in order per account and
/// endpoint, retrying on the policy's schedule, and reports sessions that expire (`session.ended`).
/// It runs only while deliveries are pending or a session will expire — woken
/// when an act adds some (`nudge`) and at start-up, which sends what a stop or a crash left (each
/// with its `webhook-id` unchanged), or when another process (the command line) wrote events
/// (`watchOtherWriters`) — and never on a request's path: a slow receiver delays only its own
/// endpoint's deliveries.
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
    /// The one timer that ends the loop's wait at `deadline`; kept across waits that end sooner, so
    /// a far deadline (the next session expiry, days ahead) is not set again at every look.
    private var alarm: (task: Task<Void, Never>, deadline: ContinuousClock.Instant)?
    /// The look for other processes' events (`watchOtherWriters`), ended by `stop`.
    private var watcher: Task<Void, Never>?

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
        watcher?.cancel()
        waiter?.resume()
        waiter = nil
    }

    /// Reads the outbox's newest event every `policy.otherWritersLook` seconds and nudges when it
    /// changed: the command line (`gatehouse users …`, `superuser …`) writes events from its own
    /// process, which no nudge reaches. One indexed read a look, on no request's path.
    func watchOtherWriters() {
        guard watcher == nil, !stopped else { return }
        watcher = Task {
            var seen = (try? await database.newestWebhookEvent()) ?? nil
            while (try? await Task.sleep(for: .seconds(policy.otherWritersLook))) != nil {
                let newest = (try? await database.newestWebhookEvent()) ?? nil
                guard newest != seen else { continue }
                seen = newest
                nudge()
            }
        }
    }

    /// Looks at the outbox (one read), starts what is due, reports lapsed sessions, then waits for
    /// a nudge — an act's new event, a try's end — or until the next retry or expiry is due.
    private func loop() async {
        defer {
            running = false
            alarm?.task.cancel()
            alarm = nil
        }
        while !stopped {
            do {
                let work = try await database.webhookWork(
                    excluding: inFlight, grace: policy.grace, limit: policy.concurrency - inFlight.count)
                for delivery in work.due {
                    inFlight.insert(delivery.id)
                    Task {
                        await self.attempt(delivery)
                        self.finish(delivery.id)
                    }
                }
                let expiry = try await expiryWait(work.nextSessionExpiry)
                if expiry.reported { continue }
                // With every slot busy, only a try's end (a nudge) makes room.
                let next = inFlight.count < policy.concurrency ? work.secondsUntilNext : nil
                let wait = [next, expiry.wait].compactMap { $0 }.min()
                // Nothing pending, unless an act added some while the outbox was read (its nudge).
                if wait == nil, inFlight.isEmpty, !nudged { return }
                await sleep(upTo: wait)
            } catch {
                // A stop may have come while the outbox was read, its database already gone.
                guard !stopped else { return }
                logger.error("webhook outbox read failed", metadata: ["error": "\(error)"])
                await sleep(upTo: 1)
            }
        }
    }

    /// Notices sessions that reached their end (`next`, the first unreported one): writes their
    /// `session.ended` (`reason` `expired`) once it is due; else answers the seconds until it will
    /// be (nil: none will, or no endpoint hears). Expiry is noticed here, on the worker's clock,
    /// whether or not anyone presents the session again.
    private func expiryWait(_ next: Date?) async throws -> (reported: Bool, wait: TimeInterval?) {
        guard let next else { return (false, nil) }
        let now = secrets.clock()
        guard next <= now else { return (false, next.timeIntervalSince(now)) }
        return (try await database.reportExpiredSessions(now: now) > 0, nil)
    }

    /// Waits until a nudge comes (or came since the last look), or `seconds` pass (nil: no limit).
    private func sleep(upTo seconds: TimeInterval?) async {
        if nudged {
            nudged = false
            return
        }
        if let seconds {
            let deadline = ContinuousClock.now + .milliseconds(Int(min(max(seconds, 0.001), 86_400) * 1000))
            if alarm.map({ $0.deadline > deadline }) ?? true {
                alarm?.task.cancel()
                alarm = (
                    Task {
                        guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil, !Task.isCancelled else {
                            return
                        }
                        self.ring()
                    }, deadline
                )
            }
        }
        await withCheckedContinuation { waiter = $0 }
        nudged = false
    }

    /// The alarm's time came: the loop looks again (an early ring only costs a look).
    private func ring() {
        alarm = nil
        nudge()
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
