import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The connections the daemon holds open and whether each is in a request, for two defences
/// against slow clients that libmicrohttpd 0.9.75 lacks (issue 22, item 11):
///
/// - a deadline on the whole request head: MHD's timeout counts idle time only, so a client that
///   sends a byte every few seconds would keep its connection for ever;
/// - room for newcomers: past `evictionThreshold` open connections, each new one closes the
///   connection that has waited longest without a request in progress (still sending its head, or
///   idle between keep-alive requests), instead of the newcomer waiting in the accept queue until
///   a slot frees. A connection whose request is being handled or answered is never closed here.
///
/// A connection is closed with `shutdown(2)`, which MHD sees as the client leaving. It is called
/// under the lock that MHD's NOTIFY_CLOSED callback takes before MHD closes the socket, so the
/// descriptor always still belongs to that connection.
final class ConnectionRegistry: Sendable {
    /// How long a connection may go without completing a request head, and when to make room.
    struct Limits: Sendable {
        /// From accepting a connection, or from its request line on a kept-alive one, to the end of
        /// the head.
        var headerDeadline: Duration
        /// From the end of one response to the end of the next request's head (MHD closes a
        /// connection idle this long anyway; this also bounds one that trickles).
        var keepAliveDeadline: Duration
        /// Open connections at which each new one makes room by closing the longest-waiting one.
        var evictionThreshold: Int
    }

    private struct Entry {
        let socket: Int32
        /// Since when it has been waiting for a request; nil while one is in progress.
        var waitingSince: ContinuousClock.Instant?
        /// When it is cut if its request head is still not complete.
        var deadline: ContinuousClock.Instant?
    }

    private struct State {
        var open: [Int: Entry] = [:]
        /// Connections closed for being slow since the last sweep logged them.
        var evicted = 0
        var expired = 0
        var sweeper: Task<Void, Never>?
    }

    let limits: Limits
    private let state = Locked(State())

    init(limits: Limits) {
        self.limits = limits
    }

    var count: Int { state.withLock { $0.open.count } }

    /// A connection was accepted (NOTIFY_CONNECTION STARTED): it has `headerDeadline` to send its
    /// first head, and makes room if the server is near its connection limit.
    func opened(_ connection: Int, socket: Int32, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.open[connection] = Entry(socket: socket, waitingSince: now, deadline: now + limits.headerDeadline)
            makeRoom(in: &state, sparing: connection)
        }
    }

    /// MHD closed the connection (NOTIFY_CONNECTION CLOSED), before closing its socket.
    func closed(_ connection: Int) {
        _ = state.withLock { $0.open.removeValue(forKey: connection) }
    }

    /// A request line arrived: the rest of the head is due within `headerDeadline`.
    func requestLineReceived(_ connection: Int, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            guard let deadline = state.open[connection]?.deadline else { return }
            state.open[connection]?.deadline = min(deadline, now + limits.headerDeadline)
        }
    }

    /// The head is complete and the request is being handled: no deadline, never evicted.
    func requestStarted(_ connection: Int) {
        state.withLock { state in
            state.open[connection]?.waitingSince = nil
            state.open[connection]?.deadline = nil
        }
    }

    /// The response was sent (or the request abandoned): waiting for the next request.
    func requestEnded(_ connection: Int, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.open[connection]?.waitingSince = now
            state.open[connection]?.deadline = now + limits.keepAliveDeadline
        }
    }

    /// Cuts connections past their deadline and any excess over the threshold; returns how many
    /// were closed for each reason since the last call (for one log line, not one per connection).
    func sweep(at now: ContinuousClock.Instant = .now) -> (expired: Int, evicted: Int) {
        state.withLock { state in
            for (key, entry) in state.open {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                Self.cut(entry)
                state.open.removeValue(forKey: key)
                state.expired += 1
            }
            makeRoom(in: &state, sparing: nil)
            defer { (state.expired, state.evicted) = (0, 0) }
            return (state.expired, state.evicted)
        }
    }

    /// Sweeps every `interval` until `stopSweeping`, logging what it closed.
    func startSweeping(every interval: Duration, log: @escaping @Sendable (_ expired: Int, _ evicted: Int) -> Void) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                let closed = self.sweep()
                if closed.expired + closed.evicted > 0 { log(closed.expired, closed.evicted) }
            }
        }
        state.withLock { $0.sweeper = task }
    }

    func stopSweeping() {
        state.withLock { state in
            state.sweeper?.cancel()
            state.sweeper = nil
        }
    }

    /// While more connections are open than `evictionThreshold`, cuts the one waiting longest for a
    /// request, never `newcomer`. A cut connection is forgotten at once (MHD still counts it until
    /// its next poll sees the shutdown, which is what the room between threshold and limit is for).
    private func makeRoom(in state: inout State, sparing newcomer: Int?) {
        var excess = state.open.count - limits.evictionThreshold
        while excess > 0 {
            let oldest = state.open.min { lhs, rhs in
                switch (lhs.key == newcomer ? nil : lhs.value.waitingSince, rhs.key == newcomer ? nil : rhs.value.waitingSince) {
                case (let left?, let right?): left < right
                case (.some, nil): true
                case (nil, _): false
                }
            }
            guard let (key, entry) = oldest, key != newcomer, entry.waitingSince != nil else { return }
            Self.cut(entry)
            state.open.removeValue(forKey: key)
            state.evicted += 1
            excess -= 1
        }
    }

    private static func cut(_ entry: Entry) {
        #if canImport(Glibc)
            _ = shutdown(entry.socket, Int32(SHUT_RDWR))
        #else
            _ = shutdown(entry.socket, SHUT_RDWR)
        #endif
    }
}
