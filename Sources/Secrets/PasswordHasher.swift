import Foundation
import Synchronization

/// Hashes new passwords with argon2id and verifies argon2id or imported bcrypt hashes, always on
/// its own `BlockingWorkPool` so ~80 ms of hashing never occupies Swift's cooperative threads.
public final class PasswordHasher: Sendable {
    /// How much memory and work each new hash costs.
    public enum Cost: Sendable {
        /// libsodium's INTERACTIVE limits, 64 MiB and 2 passes: what the server hashes with.
        case interactive
        /// 1 MiB and one pass, for test suites that make thousands of hashes and are not about
        /// their cost (half the Swift suites' CPU time went to hashing). Never for real passwords.
        case minimal
    }

    private let pool: BlockingWorkPool
    /// The parameters new hashes (and the dummy hash) are made with.
    private let parameters: Argon2.Parameters
    /// argon2id's memory per hashing thread (64 MiB at `.interactive`), kept between hashes.
    private let memory: Argon2Memory
    /// A hash of a random password made once at start-up; `dummyVerify` checks against it so an
    /// unknown email costs the same as a known one (no timing oracle for account enumeration).
    private let dummyHash: String
    private let work = Atomic<Int>(0)

    /// The argon2 work every hash and verification so far has cost, in KiB × passes: what a
    /// password try spent, measured without a clock (the attack tests compare it, where timing a
    /// try on a busy machine would be noise).
    public var argon2Work: Int { work.load(ordering: .relaxed) }

    /// Computes the dummy hash once (~80 ms at `.interactive`) on the calling thread.
    public init(
        cost: Cost = .interactive, pool: BlockingWorkPool = BlockingWorkPool(name: "gatehouse-pwhash")
    ) throws(SecretsError) {
        self.pool = pool
        parameters = cost == .interactive ? Argon2id.parameters : Argon2id.minimalParameters
        memory = Argon2Memory(keptByteCount: parameters.byteCount)
        dummyHash = try Argon2id.hash(SecureRandom.token(), parameters: parameters, memory: memory)
    }

    /// A new argon2id hash of `password` in libsodium's self-describing string format.
    public func hash(_ password: String) async throws(SecretsError) -> String {
        let (parameters, memory) = (parameters, memory)
        count(parameters)
        return try await pool.run { () throws(SecretsError) in
            try Argon2id.hash(password, parameters: parameters, memory: memory)
        }
    }

    /// True when `password` matches `hash` (argon2id/argon2i, or bcrypt `$2a$/$2b$/$2y$`).
    /// A hash that is malformed or beyond `StoredPasswordHash.Bounds` never matches and is never
    /// run; it costs the dummy hash instead, so it answers in the usual time.
    public func verify(_ password: String, against hash: String) async -> Bool {
        let (dummyHash, dummyParameters, memory) = (dummyHash, parameters, memory)
        let stored = try? StoredPasswordHash.parse(hash)
        // The argon2 hash to run and its parameters; nil for bcrypt.
        let argon2: (hash: String, parameters: Argon2.Parameters)?
        switch stored {
        case .argon2(let variant, let memoryKiB, let iterations, let parallelism):
            argon2 = (hash, .init(variant: variant, memoryKiB: memoryKiB, iterations: iterations, parallelism: parallelism))
        case .bcrypt: argon2 = nil
        case nil: argon2 = (dummyHash, dummyParameters)
        }
        if let argon2 { count(argon2.parameters) }
        return await pool.run {
            guard let argon2 else { return Bcrypt.verify(password, against: hash) }
            let matches = Argon2id.verify(password, against: argon2.hash, parameters: argon2.parameters, memory: memory)
            return stored != nil && matches
        }
    }

    private func count(_ parameters: Argon2.Parameters) {
        work.add(parameters.memoryKiB * parameters.iterations, ordering: .relaxed)
    }

    /// Spends one argon2id verification and throws the answer away: the cost of checking a
    /// password for an account that does not exist.
    public func dummyVerify(_ password: String) async {
        _ = await verify(password, against: dummyHash)
    }

    /// True when a stored hash should be replaced after the next successful sign-in: bcrypt,
    /// argon2 with other parameters than today's, or any format this hasher does not make.
    public func needsRehash(_ hash: String) -> Bool {
        let today = parameters
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
