import HTTPServer
import Secrets
import Store

/// Gives the memory a burst of work used back to the system once the server falls quiet.
///
/// After a burst (a 100,000-user seed, a load test) SQLite's connections keep their page caches
/// full, the password hasher keeps 64 MiB per thread that hashed for the next sign-in, and glibc
/// keeps the freed heap in its per-thread arenas for reuse: memory nobody uses. Once the server is
/// quiet, the caches and the hashing memory are released and `malloc_trim` returns the free pages; trimming takes the arenas' locks while it walks them, so this runs only after a
/// quiet spell, once per burst, never under load.
enum IdleMemoryRelease {
    /// Polls `server` every `interval`; releases once after a poll that saw requests is followed
    /// by one that saw none. Runs until the task is cancelled.
    static func run(
        watching server: HTTPServer, database: AppDatabase, passwords: PasswordHasher, interval: Duration = .seconds(2)
    ) async {
        var seen = server.completedRequestCount
        var busySinceRelease = true  // start-up's own garbage counts as a burst
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let completed = server.completedRequestCount
            if completed != seen {
                busySinceRelease = true
            } else if busySinceRelease, server.activeRequestCount == 0 {
                await database.releaseMemory()
                passwords.releaseMemory()
                ProcessMemory.returnFreed()
                busySinceRelease = false
            }
            seen = completed
        }
    }
}
