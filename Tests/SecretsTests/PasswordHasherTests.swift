import Testing

@testable import Secrets

/// Argon2id hashing, bcrypt import verification and rehash decisions against the real libraries.
@Suite struct PasswordHasherTests {
    let hasher: PasswordHasher

    init() throws { hasher = try PasswordHasher(pool: BlockingWorkPool(threadCount: 2, name: "test-pwhash")) }

    /// bcrypt hashes of "correct horse battery" made with libxcrypt (cost 10), one per prefix.
    static let bcryptHashes = [
        "$2a$10$WdGwdYU9tOGMj5TZlNvERufqs2u9WZxQGHmaMaIetvKTbMmfjYQxe",
        "$2b$10$d/pDY/4JIBaLznM6S2guMOxmUBbI0781jlqywrxMw/EU9cEYQsvtq",
        "$2y$10$Ol.kiBLPj0pb/hZD3eyiPeDKWmoaXnMtKjNN7Tv.SsRybKVQxTvfu"
    ]

    @Test func hashThenVerifyRoundTrips() async throws {
        let hash = try await hasher.hash("s3cret passwörd")
        #expect(hash.hasPrefix("$argon2id$v=19$m=65536,t=2,p=1$"))
        #expect(await hasher.verify("s3cret passwörd", against: hash))
        #expect(!hasher.needsRehash(hash))
    }

    @Test func wrongPasswordFails() async throws {
        let hash = try await hasher.hash("right password")
        #expect(!(await hasher.verify("wrong password", against: hash)))
        #expect(!(await hasher.verify("right passwor", against: hash)))
    }

    @Test func passwordsAreNeverTruncated() async throws {
        let long = String(repeating: "a", count: 128)
        let hash = try await hasher.hash(long)
        #expect(!(await hasher.verify(String(long.dropLast()) + "b", against: hash)))
    }

    @Test(arguments: bcryptHashes)
    func importedBcryptHashVerifies(hash: String) async {
        #expect(await hasher.verify("correct horse battery", against: hash))
        #expect(!(await hasher.verify("correct horse batterY", against: hash)))
        #expect(hasher.needsRehash(hash))
    }

    @Test func weakerArgonHashStillVerifiesButNeedsRehash() async {
        // "password123" hashed by libsodium at t=1, m=8 MiB: valid, but weaker than today's limits.
        let weak = "$argon2id$v=19$m=8192,t=1,p=1$L+96Cs/fj67LdgARFyvXjw$JtKrNtQK6wERlpgEQuUxqnU8pPadnYVjcnBtNEt8KTc"
        #expect(await hasher.verify("password123", against: weak))
        #expect(hasher.needsRehash(weak))
    }

    @Test func unknownFormatsNeverVerify() async {
        #expect(!(await hasher.verify("x", against: "")))
        #expect(!(await hasher.verify("x", against: "plaintext")))
        #expect(!(await hasher.verify("x", against: "$1$abc$def")))
        #expect(hasher.needsRehash("plaintext"))
    }

    @Test func parallelHashesAllComplete() async throws {
        let hashes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<6 { group.addTask { try await hasher.hash("password-\(index)") } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(hashes).count == 6)
    }
}
