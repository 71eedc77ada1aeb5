import Foundation
import HTTPServer

#if canImport(CMalloc)
    import CMalloc
#endif

/// Gives the heap memory a burst of work freed back to the system once the server falls quiet.
///
/// glibc keeps freed memory in its per-thread arenas for reuse; after a burst (a 100,000-user seed,
/// a load test) that is megabytes of resident memory nobody uses. `malloc_trim` returns the free
/// pages; it takes the arenas' locks while it walks them, so it runs only after a quiet spell, once
/// per burst, never under load.
enum IdleMemoryRelease {
    /// Polls `server` every `interval`; trims once after a poll that saw requests is followed by
    /// one that saw none. Runs until the task is cancelled.
    static func run(watching server: HTTPServer, interval: Duration = .seconds(2)) async {
        #if canImport(CMalloc)
            var seen = server.completedRequestCount
            var busySinceTrim = true  // start-up's own garbage counts as a burst
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let completed = server.completedRequestCount
                if completed != seen {
                    busySinceTrim = true
                } else if busySinceTrim, server.activeRequestCount == 0 {
                    malloc_trim(0)
                    busySinceTrim = false
                }
                seen = completed
            }
        #endif
    }
}
