import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Argon2's working memory, kept from one hash to the next instead of mapped and unmapped for each.
///
/// A hash takes an idle region (or maps one), fills it and gives it back, so at most one region per
/// hashing thread stays mapped. Regions are aligned to 2 MiB and advised as transparent huge pages:
/// 64 MiB is then 32 pages rather than 16,384, which makes filling faster, and a kept region costs
/// the kernel no populating or zeroing on the next hash. `release()` unmaps the idle regions when
/// the server falls quiet, and the memory's owner going away unmaps them all. Only regions of
/// `keptByteCount` are kept; another size (verifying an imported hash with other parameters) is
/// mapped for that one hash.
///
/// A kept region still holds the blocks of the last hash until the next overwrites them, but not the
/// final blocks the tag follows from (`Argon2.tag` wipes those, as libsodium wipes its copy); the
/// region is excluded from core dumps, and like libsodium (which unmaps without wiping) the rest is
/// not zeroed.
public final class Argon2Memory: Sendable {
    private struct Region: @unchecked Sendable {
        /// The mapping, as `munmap` needs it, and the 2 MiB-aligned start the hash uses.
        let mapping: UnsafeMutableRawPointer
        let mappingLength: Int
        let start: UnsafeMutableRawPointer
    }

    private static let hugePage = 2 << 20
    private let keptByteCount: Int
    private let idle = Mutex<[Region]>([])

    init(keptByteCount: Int) {
        self.keptByteCount = keptByteCount
    }

    /// A hash holds its region only inside `withRegion`, which keeps this object alive, so by now
    /// every region is idle: unmapping them is what gives a dropped `PasswordHasher`'s memory back.
    deinit { release() }

    /// Runs `body` with `byteCount` bytes of memory that no other caller is using.
    func withRegion<T>(
        byteCount: Int, _ body: (UnsafeMutableRawPointer) throws(SecretsError) -> T
    ) throws(SecretsError) -> T {
        let kept = byteCount == keptByteCount ? idle.withLock { $0.popLast() } : nil
        guard let region = kept ?? Self.map(byteCount) else { throw .hashingFailed }
        defer {
            if byteCount == keptByteCount {
                idle.withLock { $0.append(region) }
            } else {
                Self.unmap(region)
            }
        }
        return try body(region.start)
    }

    /// Unmaps every region no hash is using; returns how many bytes that gave back.
    @discardableResult
    public func release() -> Int {
        let regions = idle.withLock { regions in
            defer { regions.removeAll() }
            return regions
        }
        regions.forEach(Self.unmap)
        return regions.reduce(0) { $0 + $1.mappingLength }
    }

    /// How many regions are kept, idle, for the next hash.
    var idleCount: Int { idle.withLock(\.count) }

    private static func map(_ byteCount: Int) -> Region? {
        let length = byteCount + hugePage
        guard let mapping = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            mapping != MAP_FAILED
        else { return nil }
        let misalignment = Int(bitPattern: mapping) % hugePage
        let start = mapping + (misalignment == 0 ? 0 : hugePage - misalignment)
        #if os(Linux)
            _ = madvise(start, byteCount, MADV_HUGEPAGE)
            _ = madvise(mapping, length, MADV_DONTDUMP)
        #endif
        return Region(mapping: mapping, mappingLength: length, start: start)
    }

    private static func unmap(_ region: Region) {
        _ = munmap(region.mapping, region.mappingLength)
    }
}
