import Testing

@testable import Secrets

/// Issue 9, item 4: imported hashes are parsed in full and held to cost bounds before anything runs them.
@Suite struct StoredPasswordHashTests {
    /// bcrypt (libxcrypt, cost 4) of 72 × "B".
    static let seventyTwoBs = "$2b$04$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS"
    /// argon2-cffi's default lanes (p=4), m=64 MiB, t=2, of "correct horse".
    static let fourLanes =
        "$argon2id$v=19$m=65536,t=2,p=4$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA"

    @Test func acceptsWhatRealSystemsWrite() throws {
        #expect(try StoredPasswordHash.parse(PasswordHasherTests.bcryptHashes[0]) == .bcrypt(cost: 10))
        #expect(try StoredPasswordHash.parse(Self.seventyTwoBs) == .bcrypt(cost: 4))
        #expect(
            try StoredPasswordHash.parse(Self.fourLanes)
                == .argon2(variant: .argon2id, memoryKiB: 65536, iterations: 2, parallelism: 4))
    }

    @Test(arguments: [
        // The two: a bcrypt cost of 31 and argon2 with 4 GiB and 100 passes.
        "$2b$31$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS",
        "$argon2id$v=19$m=4194304,t=100,p=1$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "$2b$14$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS",
        "$argon2id$v=19$m=262145,t=2,p=1$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "$argon2id$v=19$m=65536,t=11,p=1$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "$argon2id$v=19$m=65536,t=2,p=5$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA"
    ])
    func refusesCostsBeyondTheBounds(hash: String) {
        #expect(throws: StoredPasswordHash.Refusal.self) { try StoredPasswordHash.parse(hash) }
    }

    @Test(arguments: [
        "$2b$10$", "$2b$10$short", "$2c$10$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS",
        "$2b$1$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS",
        "$2b$10$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZ!",
        "$argon2id$v=16$m=65536,t=2,p=1$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "$argon2id$v=19$m=65536,t=2$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "$argon2id$v=19$m=65536,t=2,p=1,p=1$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "$argon2id$v=19$m=99999999999999999999,t=2,p=1$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "$argon2id$v=19$m=65536,t=2,p=1$$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "$argon2d$v=19$m=65536,t=2,p=1$JsjAqzYnDHqRFHpC114PPA$G5p4mmuaMCbsHfJaytUfml20MAGn7IZG2PtbxrQdPQA",
        "plain-text-password", ""
    ])
    func refusesMalformedHashes(hash: String) {
        #expect(throws: StoredPasswordHash.Refusal.self) { try StoredPasswordHash.parse(hash) }
    }

    @Test func boundsAreNamedInTheRefusal() {
        #expect(throws: StoredPasswordHash.Refusal(message: "The bcrypt cost 31 is outside 4…12.")) {
            try StoredPasswordHash.parse("$2b$31$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS")
        }
    }

    @Test func bcryptNeverMatchesPastSeventyTwoBytes() async throws {
        let hasher = try PasswordHasher(pool: BlockingWorkPool(threadCount: 1))
        let bs = String(repeating: "B", count: 72)
        #expect(await hasher.verify(bs, against: Self.seventyTwoBs))
        #expect(!(await hasher.verify(bs + "anything", against: Self.seventyTwoBs)), "bcrypt truncation accepted")
        #expect(!(await hasher.verify(bs + "B", against: Self.seventyTwoBs)))
    }

    @Test func argon2WithSeveralLanesVerifies() async throws {
        let hasher = try PasswordHasher(pool: BlockingWorkPool(threadCount: 1))
        #expect(await hasher.verify("correct horse", against: Self.fourLanes))
        #expect(!(await hasher.verify("correct horsE", against: Self.fourLanes)))
    }

    @Test func aHashBeyondTheBoundsNeverMatchesEvenTheRightPassword() async throws {
        let hasher = try PasswordHasher(pool: BlockingWorkPool(threadCount: 1))
        // t=11 (one pass over the bound; tiny memory so the test stays cheap) of "correct horse":
        // were it run, it would match. Refused, it is never run.
        let elevenPasses = "$argon2id$v=19$m=8,t=11,p=1$Jn8LgDqIrkeL9x6elOX3rg$VirgsBXd2qEyJLJuSPVl5M6uV6MhVocqSCTCevWjXDM"
        #expect(!(await hasher.verify("correct horse", against: elevenPasses)))
    }
}
