import Synchronization

/// The executor a request's responder task prefers: it runs the task on the libmicrohttpd thread
/// that read the request for as long as the task needs nothing from another thread, and on Swift's
/// global pool after that.
///
/// Most requests never wait (their reads are `AppDatabase`'s hot reads, their pages memoized), so
/// they answer without a thread switch, without suspending the connection and without waking MHD's
/// poll loop to resume it — which cost more than the rest of such a request. A responder that does
/// wait (a database write, a password hash, a call to a remote backend) is resumed on the global
/// pool by whichever thread finished the wait, and the connection is suspended meanwhile
/// (`ServerCore.dispatch`).
final class InlineFirstExecutor: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var draining = true
    }

    /// A `Mutex` rather than `Locked`: one executor is made per request, and it needs no allocation.
    private let queue = Mutex(Queue())

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let inline = queue.withLock { queue in
            guard queue.draining else { return false }
            queue.jobs.append(job)
            return true
        }
        if !inline {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    /// Runs the queued jobs on the calling thread until none is left; jobs enqueued afterwards go
    /// to the global pool.
    func drain() {
        while let job = queue.withLock({ queue -> UnownedJob? in
            guard !queue.jobs.isEmpty else {
                queue.draining = false
                return nil
            }
            return queue.jobs.removeFirst()
        }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
