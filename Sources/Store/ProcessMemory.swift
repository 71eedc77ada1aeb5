/// The process's heap, as the C allocator keeps it.
enum ProcessMemory {
    /// Returns memory the allocator holds free to the system (glibc keeps it for reuse otherwise).
    /// Meant after a one-off burst such as a bulk seed, not on the request path.
    static func returnFreed() {
        #if os(Linux)
            _ = gatehouse_malloc_trim(0)
        #endif
    }
}

#if os(Linux)
    /// glibc's `malloc_trim(3)`, which Swift's Glibc module does not export.
    @_silgen_name("malloc_trim")
    private func gatehouse_malloc_trim(_ pad: Int) -> Int32
#endif
