import GRDB

extension AppDatabase {
    /// Frees SQLite's page caches once a burst of work is over: GRDB's readers close (they reopen on
    /// the next read), the writer and the idle hot-read connections drop their cached pages. Every
    /// page is still in the file and the system's page cache, so the next read costs a `pread`, not
    /// a disk seek. Returns once the writer has released its cache.
    public func releaseMemory() async {
        pool.releaseMemoryEventually()
        hotReads.releaseMemory()
        // The writer releases on its own serial queue; a write through that queue after it returns
        // only once it has.
        _ = try? await pool.writeWithoutTransaction { _ in }
    }
}
