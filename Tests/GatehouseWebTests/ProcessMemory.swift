import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(CMalloc)
    import CMalloc
#endif

/// What the suites that measure this process read of it (the servers they start run in it).
enum ProcessMemory {
    /// The process's resident memory in MiB, from `/proc/self/statm` (its second field, in pages),
    /// once the allocator has returned its free pages (as `gatehouse serve` does when it falls quiet),
    /// so what is left is memory something still holds.
    static func residentMiB() throws -> Double {
        #if canImport(CMalloc)
            _ = malloc_trim(0)
        #endif
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let fields = statm.split(separator: " ")
        let pages = try #require(fields.count > 1 ? Double(fields[1]) : nil, "statm: \(statm)")
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}
