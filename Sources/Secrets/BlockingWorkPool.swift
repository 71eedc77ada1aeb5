import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fixed set of dedicated threads for CPU-heavy blocking work (argon2id takes ~80 ms).
///
/// Swift's cooperative pool has one thread per core (2 here); running a hash there would stall
/// every other request. Jobs wait in a FIFO queue and at most `threadCount` run at once; callers
/// suspend (not block) until their job is done. The threads run at a lower scheduling priority
/// (nice +10 on Linux), so a burst of hashing never starves the threads answering page requests.
public final class BlockingWorkPool: Sendable {
    private let queue = JobQueue()

    /// Starts `threadCount` threads (at least one) named `name-0`, `name-1`, …; they end when the
    /// pool is released and its queue has drained.
    public init(threadCount: Int = ProcessInfo.processInfo.activeProcessorCount, name: String = "gatehouse-blocking") {
        for index in 0..<max(1, threadCount) {
            let queue = self.queue
            let thread = Thread {
                Self.lowerCurrentThreadPriority()
                queue.runWorker()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    deinit { queue.shutDown() }

    /// Linux schedules threads individually, so `setpriority` on the thread id renices just this one.
    /// Glibc's `gettid` is not visible to Swift; `/proc/thread-self` links to `PID/task/TID`.
    private static func lowerCurrentThreadPriority() {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: 64)
            let length = readlink("/proc/thread-self", &buffer, buffer.count - 1)
            guard length > 0 else { return }
            let link = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let last = link.split(separator: "/").last, let threadID = id_t(last) else { return }
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), threadID, 10)
        #endif
    }

    /// Runs `work` on one of the pool's threads and returns its result (or rethrows its error).
    public func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.enqueue { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }
}
