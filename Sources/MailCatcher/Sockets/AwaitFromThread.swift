import Dispatch
import Synchronization

/// Runs `operation` as a task on Swift's concurrency pool and blocks the calling thread until it
/// has returned: how a connection's own thread awaits the async `Mailer`.
///
/// Only for the catcher's own threads, never a pool thread (it could be the one the task needs).
/// Each connection thread blocks on its own task alone, so any number delivering at once just
/// queue tasks on the pool, which none of them occupies.
func awaitFromThread<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) -> Value {
    let outcome = Outcome<Value>()
    Task { outcome.fulfil(await operation()) }
    return outcome.wait()
}

/// A value one task hands to one waiting thread.
private final class Outcome<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func fulfil(_ result: Value) {
        value.withLock { $0 = result }
        ready.signal()
    }

    func wait() -> Value {
        ready.wait()
        guard let result = value.withLock({ $0 }) else { preconditionFailure("signalled without a value") }
        return result
    }
}
