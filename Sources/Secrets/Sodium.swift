internal import CSodium

/// One-time libsodium start-up. Every public entry point of this module calls `Sodium.ready()`
/// first, so no caller has to remember `sodium_init()`.
enum Sodium {
    /// `sodium_init()` runs once (Swift initialises a `static let` exactly once, thread-safely).
    /// It returns 0 on the first call, 1 when already initialised, and -1 only when the library
    /// cannot work at all (no entropy source); nothing in Gatehouse is safe then, so we stop.
    private static let initialised: Bool = sodium_init() >= 0

    static func ready() {
        precondition(initialised, "libsodium failed to initialise (sodium_init() returned -1)")
    }
}

extension Sodium {
    /// Zeroes `bytes` in a way the compiler cannot drop as a dead store (`sodium_memzero`).
    static func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        sodium_memzero(start, bytes.count)
    }
}
