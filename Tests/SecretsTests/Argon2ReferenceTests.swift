import CArgon2Reference
import Testing

@testable import Secrets

/// Gatehouse's argon2 against the reference implementation (libargon2) where libsodium cannot
/// check it: several lanes, a secret and associated data; and what it leaves behind in the memory it
/// keeps between hashes.
@Suite struct Argon2ReferenceTests {
    /// Random lanes (1–8), memory, passes, tag lengths, secrets and associated data, both variants
    /// and both fill kernels: every tag equals libargon2's.
    @Test(arguments: [Argon2.Kernel.fastest, .portable])
    func multiLaneTagsMatchTheReference(kernel: Argon2.Kernel) throws {
        let memory = Argon2Memory(keptByteCount: 0)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<32 {
            let variant: StoredPasswordHash.Argon2Variant = round % 2 == 0 ? .argon2id : .argon2i
            let lanes = 1 + round % 8
            // libargon2 wants at least 8 blocks a lane; odd sizes exercise the rounding to slices.
            let memoryKiB = 8 * lanes + Int.random(in: 0...(round < 24 ? 300 : 3000), using: &generator)
            let iterations = Int.random(in: 1...3, using: &generator)
            let tagLength = [4, 16, 32, 64, 65, 97, 128, 1024][round % 8]
            let password = SecureRandom.bytes(Int.random(in: 0...64, using: &generator))
            let salt = SecureRandom.bytes(Int.random(in: 8...32, using: &generator))
            let secret = SecureRandom.bytes(round % 3 == 0 ? 0 : Int.random(in: 1...32, using: &generator))
            let associatedData = SecureRandom.bytes(round % 4 == 0 ? 0 : Int.random(in: 1...40, using: &generator))
            let parameters = Argon2.Parameters(
                variant: variant, memoryKiB: memoryKiB, iterations: iterations, parallelism: lanes)
            let ours = try Argon2.tag(
                password: password, salt: salt, secret: secret, associatedData: associatedData, tagLength: tagLength,
                parameters: parameters, memory: memory, kernel: kernel)
            let reference = try Self.reference(
                password: password, salt: salt, secret: secret, associatedData: associatedData, tagLength: tagLength,
                parameters: parameters)
            #expect(
                ours == reference,
                "\(variant) p=\(lanes) m=\(memoryKiB) t=\(iterations) tag \(tagLength) bytes, secret \(secret.count), ad \(associatedData.count)"
            )
        }
    }

    /// The final block of every lane, from which the tag follows without the password, is zero in the
    /// kept region once the hash is done; the blocks before it are not, so the check reads the
    /// region the hash used.
    @Test func theKeptRegionNoLongerHoldsTheFinalBlocks() throws {
        let parameters = Argon2.Parameters(variant: .argon2id, memoryKiB: 256, iterations: 2, parallelism: 4)
        let memory = Argon2Memory(keptByteCount: parameters.byteCount)
        _ = try Argon2.tag(
            password: Array("correct horse".utf8), salt: SecureRandom.bytes(16), tagLength: 32,
            parameters: parameters, memory: memory)
        #expect(memory.idleCount == 1)
        let blockBytes = 1024
        try memory.withRegion(byteCount: parameters.byteCount) { region in
            for lane in 0..<parameters.parallelism {
                let laneStart = region + lane * parameters.laneLength * blockBytes
                let final = UnsafeRawBufferPointer(start: laneStart + (parameters.laneLength - 1) * blockBytes, count: blockBytes)
                let before = UnsafeRawBufferPointer(
                    start: laneStart + (parameters.laneLength - 2) * blockBytes, count: blockBytes)
                #expect(final.allSatisfy { $0 == 0 }, "lane \(lane)'s final block")
                #expect(before.contains { $0 != 0 }, "lane \(lane)'s block before the final one")
            }
        }
    }

    /// libargon2's tag for the same inputs, one thread.
    private static func reference(
        password: [UInt8], salt: [UInt8], secret: [UInt8], associatedData: [UInt8], tagLength: Int,
        parameters: Argon2.Parameters
    ) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: tagLength)
        var password = password
        var salt = salt
        var secret = secret
        var associatedData = associatedData
        let status = output.withUnsafeMutableBufferPointer { out in
            password.withUnsafeMutableBufferPointer { pwd in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associatedData.withUnsafeMutableBufferPointer { ad in
                            var context = argon2_context(
                                out: out.baseAddress, outlen: UInt32(out.count),
                                pwd: pwd.baseAddress, pwdlen: UInt32(pwd.count),
                                salt: salt.baseAddress, saltlen: UInt32(salt.count),
                                secret: secret.baseAddress, secretlen: UInt32(secret.count),
                                ad: ad.baseAddress, adlen: UInt32(ad.count),
                                t_cost: UInt32(parameters.iterations), m_cost: UInt32(parameters.memoryKiB),
                                lanes: UInt32(parameters.parallelism), threads: 1,
                                version: UInt32(ARGON2_VERSION_13.rawValue),
                                allocate_cbk: nil, free_cbk: nil, flags: 0)
                            return argon2_ctx(&context, parameters.variant == .argon2i ? Argon2_i : Argon2_id)
                        }
                    }
                }
            }
        }
        try #require(status == ARGON2_OK.rawValue, "libargon2: \(String(cString: argon2_error_message(status)))")
        return output
    }
}
