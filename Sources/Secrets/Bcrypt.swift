internal import CCrypt
internal import CSodium

/// Verifies bcrypt hashes (`$2a$`, `$2b$`, `$2y$`: PocketBase's format) with libxcrypt's
/// reentrant `crypt_r`, so imported users can sign in once and be rehashed to argon2id.
/// Blocking (~64 ms at cost 10): call from a `BlockingWorkPool` thread.
enum Bcrypt {
    /// bcrypt reads at most 72 bytes of a password and ignores the rest.
    static let maximumPasswordBytes = 72

    static func verify(_ password: String, against hash: String) -> Bool {
        // crypt_r reads a C string: a password with a NUL would be silently cut short there. And
        // bcrypt itself truncates: `B×72 + anything` would match `B×72`, so longer ones never match.
        guard !password.utf8.contains(0), password.utf8.count <= maximumPasswordBytes else { return false }
        // `struct crypt_data` is ~32 KiB: keep it off the stack. libxcrypt requires it zeroed before
        // its first use (crypt_r(3)); it is wiped again afterwards since it held password state.
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        data.initialize(to: crypt_data())
        defer {
            sodium_memzero(data, MemoryLayout<crypt_data>.size)
            data.deinitialize(count: 1)
            data.deallocate()
        }
        // On failure crypt_r returns NULL or a failure token starting with "*"; neither equals `hash`.
        guard let output = crypt_r(password, hash, data) else { return false }
        return KeyedHash.constantTimeEquals(Array(String(cString: output).utf8), Array(hash.utf8))
    }
}
