import Foundation

/// A fixed set of dedicated threads for CPU-heavy blocking work (argon2id takes ~80 ms).
///
/// Swift's cooperative pool has one thread per core (2 here); running a hash there would stall
/// every other request. Jobs wait in a FIFO queue and at most `threadCount` run at once; callers
/// suspend (not block) until their job is done.
public final class BlockingWorkPool: Sendable {
    private let queue = JobQueue()

    /// Starts `threadCount` threads (at least one) named `name-0`, `name-1`, …; they end when the
    /// pool is released and its queue has drained.
    public init(threadCount: Int = ProcessInfo.processInfo.activeProcessorCount, name: String = "gatehouse-blocking") {
        for index in 0..<max(1, threadCount) {
            let queue = self.queue
            let thread = Thread { queue.runWorker() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    deinit { queue.shutDown() }

    /// Runs `work` on one of the pool's threads and returns its result (or rethrows its error).
    public func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.enqueue { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }
}
