import Foundation

/// The locked FIFO behind `BlockingWorkPool`: workers sleep on a condition variable until a job
/// arrives or the queue shuts down.
final class JobQueue: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    // `jobs` and `isShutDown` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var isShutDown = false

    func enqueue(_ job: @escaping Job) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the workers finish the jobs already queued, then end.
    func shutDown() {
        condition.lock()
        isShutDown = true
        condition.broadcast()
        condition.unlock()
    }

    /// A worker thread's whole life: take jobs until shut down and drained.
    func runWorker() {
        while let job = next() { job() }
    }

    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !isShutDown { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}
