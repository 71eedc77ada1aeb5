#if canImport(CMalloc)
    import CMalloc
#endif

/// The process's heap, as the C allocator keeps it.
enum ProcessMemory {
    /// Returns memory the allocator holds free to the system (glibc keeps it in its arenas for
    /// reuse otherwise). Meant after a burst of work, not on the request path: it takes the
    /// arenas' locks while it walks them.
    static func returnFreed() {
        #if canImport(CMalloc)
            _ = malloc_trim(0)
        #endif
    }

    /// Caps glibc's heap arenas at `count` (one per core serves a server's threads well). glibc
    /// otherwise opens up to eight per core as threads first allocate, and each keeps its own free
    /// memory and fragments: after `make bench` that slack was 5 of the server's 16 MiB of heap.
    /// Call it before the threads that serve requests start.
    static func limitArenas(to count: Int) {
        #if canImport(CMalloc)
            _ = mallopt(M_ARENA_MAX, Int32(max(1, count)))
        #endif
    }
}
