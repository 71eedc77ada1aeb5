import CSodium
import Foundation
import Testing

@testable import Secrets

/// Gatehouse's argon2 against RFC 9106's test vectors and against libsodium, for both fill kernels,
/// and the memory it keeps between hashes.
@Suite struct Argon2Tests {
    static let kernels: [Argon2.Kernel] = [.fastest, .portable]

    /// On a CPU with AVX2 the fastest kernel is the AVX2 one, so the kernel tests below cover it
    /// rather than running the portable kernel twice.
    @Test func fastestKernelIsAVX2WhereTheCPUHasIt() throws {
        #if arch(x86_64) && os(Linux)
            let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
            #expect(Argon2.fastestKernel == (flags.split(separator: " ").contains("avx2") ? "avx2" : "portable"))
        #else
            #expect(Argon2.fastestKernel == "portable")
        #endif
    }

    /// RFC 9106 section 5: m=32 KiB, t=3, p=4 lanes, with a secret and associated data.
    @Test(arguments: kernels)
    func rfc9106TestVectors(kernel: Argon2.Kernel) throws {
        let memory = Argon2Memory(keptByteCount: 0)
        let expected: [(StoredPasswordHash.Argon2Variant, String)] = [
            (.argon2i, "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8"),
            (.argon2id, "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
        ]
        for (variant, tag) in expected {
            let output = try Argon2.tag(
                password: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 16),
                secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12), tagLength: 32,
                parameters: .init(variant: variant, memoryKiB: 32, iterations: 3, parallelism: 4), memory: memory,
                kernel: kernel)
            #expect(Hex.encode(output) == tag, "\(variant)")
        }
    }

    /// Random passwords, salts, costs and tag lengths: every tag equals libsodium's `crypto_pwhash`.
    /// Tags longer than 64 bytes exercise H's chained form; memory sizes that are not a multiple of
    /// four blocks and below eight exercise the rounding.
    @Test(arguments: kernels)
    func matchesLibsodium(kernel: Argon2.Kernel) throws {
        #expect(sodium_init() >= 0)
        let memory = Argon2Memory(keptByteCount: 0)
        for round in 0..<24 {
            let variant: StoredPasswordHash.Argon2Variant = round % 3 == 0 ? .argon2i : .argon2id
            // libsodium's argon2i needs at least 3 passes.
            let iterations = variant == .argon2i ? 3 + round % 2 : 1 + round % 3
            let memoryKiB = [8, 9, 13, 64, 333, 1024, 2049, 4096][round % 8]
            let tagLength = [16, 32, 63, 64, 65, 100, 129, 512][(round / 3) % 8]
            let password = SecureRandom.bytes(round * 3)
            let salt = SecureRandom.bytes(Int(crypto_pwhash_SALTBYTES))  // libsodium reads exactly this many
            var reference = [UInt8](repeating: 0, count: tagLength)
            let algorithm = variant == .argon2i ? crypto_pwhash_ALG_ARGON2I13 : crypto_pwhash_ALG_ARGON2ID13
            let status = crypto_pwhash(
                &reference, UInt64(tagLength), password.map { CChar(bitPattern: $0) }, UInt64(password.count), salt,
                UInt64(iterations), memoryKiB * 1024, algorithm)
            try #require(status == 0, "libsodium refused m=\(memoryKiB) t=\(iterations)")
            let ours = try Argon2.tag(
                password: password, salt: salt, tagLength: tagLength,
                parameters: .init(variant: variant, memoryKiB: memoryKiB, iterations: iterations, parallelism: 1),
                memory: memory, kernel: kernel)
            #expect(ours == reference, "\(variant) m=\(memoryKiB) t=\(iterations) tag \(tagLength) bytes")
        }
    }

    /// The strings interoperate: libsodium verifies what Gatehouse hashes and Gatehouse verifies what
    /// libsodium hashes (the hashes every earlier Gatehouse stored).
    @Test func stringsInteroperateWithLibsodium() async throws {
        #expect(sodium_init() >= 0)
        let hasher = try PasswordHasher(pool: BlockingWorkPool(threadCount: 1, name: "test-argon2"))
        let ours = try await hasher.hash("pässword 1")
        #expect(crypto_pwhash_str_verify(ours, "pässword 1", UInt64("pässword 1".utf8.count)) == 0)
        #expect(crypto_pwhash_str_verify(ours, "pässword 2", UInt64("pässword 2".utf8.count)) != 0)

        var theirs = [CChar](repeating: 0, count: crypto_pwhash_strbytes())
        #expect(crypto_pwhash_str(&theirs, "pässword 1", UInt64("pässword 1".utf8.count), 2, 64 << 20) == 0)
        let stored = String(decoding: theirs.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(await hasher.verify("pässword 1", against: stored))
        #expect(!(await hasher.verify("pässword 2", against: stored)))
        #expect(!hasher.needsRehash(stored))
    }

    /// A salt or tag whose base64 has leftover bits set, or padding, is not that hash: it never
    /// verifies, as libsodium refuses it too.
    @Test func nonCanonicalBase64NeverVerifies() async throws {
        let hasher = try PasswordHasher(pool: BlockingWorkPool(threadCount: 1, name: "test-argon2"))
        let hash = try await hasher.hash("password")
        let fields = hash.split(separator: "$", omittingEmptySubsequences: false)
        // 16 bytes are 22 characters; the last carries 4 bits that must be zero.
        let salt = fields[4]
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let last = alphabet.firstIndex(of: salt.last!)!
        let tampered = salt.dropLast() + String(alphabet[last ^ 1])
        let altered = fields.prefix(4).joined(separator: "$") + "$" + tampered + "$" + fields[5]
        #expect(crypto_pwhash_str_verify(altered, "password", 8) != 0)
        #expect(!(await hasher.verify("password", against: altered)))
        #expect(await hasher.verify("password", against: hash))
    }

    /// One region per hashing thread stays mapped for the next hash; `release()` unmaps them and
    /// hashing maps again. A hash of another size is mapped for itself and not kept.
    @Test func memoryIsKeptBetweenHashesAndReleased() async throws {
        let parameters = Argon2.Parameters(variant: .argon2id, memoryKiB: 256, iterations: 1, parallelism: 1)
        let memory = Argon2Memory(keptByteCount: parameters.byteCount)
        let first = try Argon2.tag(
            password: [1], salt: [2, 2, 2, 2, 2, 2, 2, 2], tagLength: 32, parameters: parameters, memory: memory)
        #expect(memory.idleCount == 1)
        let second = try Argon2.tag(
            password: [1], salt: [2, 2, 2, 2, 2, 2, 2, 2], tagLength: 32, parameters: parameters, memory: memory)
        #expect(second == first, "a reused region gives the same tag")
        #expect(memory.idleCount == 1)

        var other = parameters
        other.memoryKiB = 512
        _ = try Argon2.tag(password: [1], salt: [2, 2, 2, 2, 2, 2, 2, 2], tagLength: 32, parameters: other, memory: memory)
        #expect(memory.idleCount == 1)

        #expect(memory.release() >= parameters.byteCount)
        #expect(memory.idleCount == 0)
        let third = try Argon2.tag(
            password: [1], salt: [2, 2, 2, 2, 2, 2, 2, 2], tagLength: 32, parameters: parameters, memory: memory)
        #expect(third == first)
    }

    /// Hashes running at once each get their own region; afterwards as many are kept as ran together.
    @Test func concurrentHashesUseSeparateRegions() async throws {
        let hasher = try PasswordHasher(pool: BlockingWorkPool(threadCount: 2, name: "test-argon2"))
        let passwords = (0..<4).map { "password-\($0)" }
        let hashes = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for password in passwords { group.addTask { (password, try await hasher.hash(password)) } }
            return try await group.reduce(into: [(String, String)]()) { $0.append($1) }
        }
        for (password, hash) in hashes {
            #expect(await hasher.verify(password, against: hash))
            #expect(crypto_pwhash_str_verify(hash, password, UInt64(password.utf8.count)) == 0)
        }
        let released = hasher.releaseMemory()
        #expect(released >= Argon2id.parameters.byteCount && released <= 2 * (Argon2id.parameters.byteCount + (2 << 20)))
        #expect(hasher.releaseMemory() == 0)
    }
}
