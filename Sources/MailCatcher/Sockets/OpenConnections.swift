import Foundation
import Synchronization

/// The catcher's threads (the accept loop and one per client) and the clients' sockets, so
/// `shutdown()` can cut every connection and wait until each thread has returned.
///
/// A client's socket is closed here, under the same lock `closeAll()` cuts sockets under, so a
/// descriptor number it cuts always still belongs to that client.
final class OpenConnections: Sendable {
    private struct State {
        var sockets: Set<Int32> = []
        var threads = 0
        var closing = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A thread that holds no client (the accept loop) is starting; it calls `threadEnded()`.
    func threadStarting() {
        state.withLock { $0.threads += 1 }
    }

    /// Whether a new client gets a thread of its own.
    enum Admission {
        case admitted
        /// `limit` clients are already connected.
        case full
        /// `closeAll()` has begun.
        case closing
    }

    /// Counts in a client about to get its own thread, which calls `release(_:)` at its end, while
    /// fewer than `limit` are connected. A client not admitted is the caller's to answer and `turnAway`.
    func admit(_ client: ClientSocket, limit: Int) -> Admission {
        state.withLock { state in
            guard !state.closing else { return .closing }
            guard state.sockets.count < limit else { return .full }
            state.sockets.insert(client.descriptor)
            state.threads += 1
            return .admitted
        }
    }

    /// Closes a client that was not admitted (it never reached `sockets`, so no cut can race it).
    func turnAway(_ client: ClientSocket) {
        close(client.descriptor)
    }

    /// The client's thread is done with it: closes its socket and ends the thread's count.
    func release(_ client: ClientSocket) {
        state.withLock { state in
            state.sockets.remove(client.descriptor)
            close(client.descriptor)
        }
        threadEnded()
    }

    func threadEnded() {
        let waiters = state.withLock { state in
            state.threads -= 1
            guard state.threads == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Admits no one more, cuts every open connection (its thread's next read sees the end, its next
    /// write fails) and returns once every thread has ended. The accept loop must be woken apart.
    func closeAll() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                state.closing = true
                for socket in state.sockets { _ = shutdown(socket, Int32(SHUT_RDWR)) }
                guard state.threads > 0 else { return true }
                state.waiters.append(waiter)
                return false
            }
            if done { waiter.resume() }
        }
    }
}
