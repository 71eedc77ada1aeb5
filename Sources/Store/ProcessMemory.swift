#if canImport(CMalloc)
    import CMalloc
#endif

/// The process's heap, as the C allocator keeps it.
public enum ProcessMemory {
    /// Returns memory the allocator holds free to the system (glibc keeps it in its arenas for
    /// reuse otherwise). Meant after a burst of work, not on the request path: it takes the
    /// arenas' locks while it walks them.
    public static func returnFreed() {
        #if canImport(CMalloc)
            _ = malloc_trim(0)
        #endif
    }

    /// Caps glibc's heap arenas at `count` (one per core serves a server's threads well). glibc
    /// otherwise opens up to eight per core as threads first allocate, and each keeps its own free
    /// memory and fragments: after a load test a quarter of the server's heap was arenas' slack.
    /// Call it before the threads that serve requests start.
    public static func limitArenas(to count: Int) {
        #if canImport(CMalloc)
            _ = mallopt(M_ARENA_MAX, Int32(max(1, count)))
        #endif
    }
}
