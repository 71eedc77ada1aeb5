import Foundation

/// Hashes new passwords with argon2id and verifies argon2id or imported bcrypt hashes, always on
/// its own `BlockingWorkPool` so ~80 ms of hashing never occupies Swift's cooperative threads.
public final class PasswordHasher: Sendable {
    private let pool: BlockingWorkPool
    /// argon2id's 64 MiB per hashing thread, kept between hashes.
    private let memory = Argon2Memory(keptByteCount: Argon2id.parameters.byteCount)
    /// A hash of a random password made once at start-up; `dummyVerify` checks against it so an
    /// unknown email costs the same as a known one (no timing oracle for account enumeration).
    private let dummyHash: String

    /// Computes the dummy hash once (~80 ms) on the calling thread.
    public init(pool: BlockingWorkPool = BlockingWorkPool(name: "gatehouse-pwhash")) throws(SecretsError) {
        self.pool = pool
        dummyHash = try Argon2id.hash(SecureRandom.token(), memory: memory)
    }

    /// A new argon2id hash of `password` in libsodium's self-describing string format.
    public func hash(_ password: String) async throws(SecretsError) -> String {
        let memory = memory
        return try await pool.run { () throws(SecretsError) in try Argon2id.hash(password, memory: memory) }
    }

    /// True when `password` matches `hash` (argon2id/argon2i, or bcrypt `$2a$/$2b$/$2y$`).
    /// A hash that is malformed or beyond `StoredPasswordHash.Bounds` never matches and is never
    /// run; it costs the dummy hash instead, so it answers in the usual time.
    public func verify(_ password: String, against hash: String) async -> Bool {
        let (dummyHash, memory) = (dummyHash, memory)
        return await pool.run {
            switch try? StoredPasswordHash.parse(hash) {
            case .argon2(let variant, let memoryKiB, let iterations, let parallelism):
                let parameters = Argon2.Parameters(
                    variant: variant, memoryKiB: memoryKiB, iterations: iterations, parallelism: parallelism)
                return Argon2id.verify(password, against: hash, parameters: parameters, memory: memory)
            case .bcrypt: return Bcrypt.verify(password, against: hash)
            case nil:
                _ = Argon2id.verify(password, against: dummyHash, parameters: Argon2id.parameters, memory: memory)
                return false
            }
        }
    }

    /// Spends one argon2id verification and throws the answer away: the cost of checking a
    /// password for an account that does not exist.
    public func dummyVerify(_ password: String) async {
        _ = await verify(password, against: dummyHash)
    }

    /// True when a stored hash should be replaced after the next successful sign-in: bcrypt,
    /// argon2 with other parameters than today's, or any format this hasher does not make.
    public func needsRehash(_ hash: String) -> Bool {
        let today = Argon2id.parameters
        return (try? StoredPasswordHash.parse(hash))
            != .argon2(
                variant: .argon2id, memoryKiB: today.memoryKiB, iterations: today.iterations,
                parallelism: today.parallelism)
    }

    /// Unmaps the hashing memory kept for the next hash (64 MiB per thread that hashed); the next
    /// hash maps it again. For when the server falls quiet. Returns the bytes given back.
    @discardableResult
    public func releaseMemory() -> Int {
        memory.release()
    }
}
