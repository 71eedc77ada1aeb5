import Foundation

/// `poll(2)` for the catcher's threads, restarted with the time left when a signal interrupts it.
enum Poll {
    /// Waits until one of `requests` is ready (its `revents` set) or `timeout` has passed; false
    /// when it passed. Without a timeout it waits as long as it takes.
    static func wait(for requests: inout [pollfd], timeout: Duration?) throws(SMTPSocketError) -> Bool {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        while true {
            let ready = poll(&requests, nfds_t(requests.count), deadline.map { millisecondsLeft(until: $0, on: clock) } ?? -1)
            if ready > 0 { return true }
            if ready == 0 { return false }
            guard errno == EINTR else { throw .lastError(of: "poll") }
        }
    }

    /// Waits for `events` on one descriptor; false when `timeout` passed first.
    static func wait(for events: Int32, on descriptor: Int32, timeout: Duration?) throws(SMTPSocketError) -> Bool {
        var requests = [pollfd(fd: descriptor, events: Int16(events), revents: 0)]
        return try wait(for: &requests, timeout: timeout)
    }

    /// The whole milliseconds to `deadline`, rounded up so a wait never ends just before it.
    private static func millisecondsLeft(until deadline: ContinuousClock.Instant, on clock: ContinuousClock) -> Int32 {
        let left = (deadline - clock.now) / .milliseconds(1)
        return Int32(max(0, min(left.rounded(.up), Double(Int32.max))))
    }
}
