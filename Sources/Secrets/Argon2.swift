internal import CArgon2Fill
internal import CSodium

/// Argon2 version 19 (RFC 9106): H0, H' and the tag are Blake2b (libsodium's); the memory-hard
/// filling in between is `CArgon2Fill` (AVX2 where the CPU has it), in a region `Argon2Memory`
/// keeps for the next hash.
///
/// libsodium's argon2 maps its 64 MiB afresh for every hash and unmaps it after, so about a third
/// of each sign-in went to the kernel populating, zeroing and freeing pages. For the same inputs
/// the output is libsodium's, byte for byte (Argon2Tests checks both fill kernels against it and
/// against the RFC's test vectors).
enum Argon2 {
    struct Parameters: Equatable, Sendable {
        var variant: StoredPasswordHash.Argon2Variant
        var memoryKiB: Int
        var iterations: Int
        var parallelism: Int

        /// Blocks per lane: memory rounded down to whole slices (4 per lane), at least 2 blocks each.
        var laneLength: Int { max(memoryKiB / (4 * parallelism), 2) * 4 }
        /// The bytes the filling needs.
        var byteCount: Int { laneLength * parallelism * Int(GH_ARGON2_BLOCK_BYTES) }
        /// RFC 9106's type field y.
        fileprivate var type: gh_argon2_type { variant == .argon2i ? GH_ARGON2_I : GH_ARGON2_ID }
    }

    /// Which implementation of the compression function fills memory; tests run both.
    enum Kernel {
        case fastest
        case portable
    }

    /// The `tagLength`-byte Argon2 tag of `password` and `salt`. `secret` and `associatedData` are
    /// RFC 9106's K and X, empty in password hashing (the RFC's test vectors set them).
    /// Throws only when the memory cannot be mapped.
    static func tag(
        password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associatedData: [UInt8] = [],
        tagLength: Int, parameters: Parameters, memory: Argon2Memory, kernel: Kernel = .fastest
    ) throws(SecretsError) -> [UInt8] {
        precondition((4...1024).contains(tagLength) && parameters.iterations >= 1 && (1...255).contains(parameters.parallelism))
        Sodium.ready()
        let lanes = parameters.parallelism
        // H0 followed by room for the block's column and lane, as the first two blocks hash it.
        let seed = WipedBuffer(byteCount: 72)
        defer { seed.wipe() }
        var h0 = Blake2b(outputLength: 64)
        for field in [lanes, tagLength, parameters.memoryKiB, parameters.iterations, 0x13, Int(parameters.type.rawValue)] {
            h0.update(littleEndian: field)
        }
        for field in [password, salt, secret, associatedData] {
            h0.update(littleEndian: field.count)
            h0.update(field)
        }
        h0.finish(into: UnsafeMutableRawBufferPointer(rebasing: seed.bytes[..<64]))
        let laneLength = parameters.laneLength
        let blockBytes = Int(GH_ARGON2_BLOCK_BYTES)
        return try memory.withRegion(byteCount: parameters.byteCount) { region in
            func block(lane: Int, column: Int) -> UnsafeMutableRawBufferPointer {
                UnsafeMutableRawBufferPointer(start: region + (lane * laneLength + column) * blockBytes, count: blockBytes)
            }
            for lane in 0..<lanes {
                for column in 0..<2 {
                    seed.bytes.storeBytes(of: UInt32(column).littleEndian, toByteOffset: 64, as: UInt32.self)
                    seed.bytes.storeBytes(of: UInt32(lane).littleEndian, toByteOffset: 68, as: UInt32.self)
                    variableLengthHash(of: UnsafeRawBufferPointer(seed.bytes), into: block(lane: lane, column: column))
                }
            }
            gh_argon2_fill(
                region.assumingMemoryBound(to: UInt64.self), UInt32(lanes), UInt32(laneLength),
                UInt32(parameters.iterations), parameters.type,
                kernel == .fastest ? GH_ARGON2_FASTEST : GH_ARGON2_PORTABLE)
            // The tag hashes the XOR of every lane's last block. That final block, like H0, gives the
            // tag without the password, so both are wiped, as libsodium does; so are the blocks it
            // is made of, where the region keeps them until the next hash.
            let last = WipedBuffer(byteCount: blockBytes)
            defer { last.wipe() }
            last.bytes.copyMemory(from: UnsafeRawBufferPointer(block(lane: 0, column: laneLength - 1)))
            for lane in 0..<lanes {
                let laneBlock = block(lane: lane, column: laneLength - 1)
                if lane > 0 {
                    for index in 0..<blockBytes { last.bytes[index] ^= laneBlock[index] }
                }
                Sodium.wipe(laneBlock)
            }
            var tag = [UInt8](repeating: 0, count: tagLength)
            tag.withUnsafeMutableBytes { variableLengthHash(of: UnsafeRawBufferPointer(last.bytes), into: $0) }
            return tag
        }
    }

    /// The name of the fill kernel `.fastest` picks on this CPU ("avx2" or "portable").
    static var fastestKernel: String { String(cString: gh_argon2_fastest_kernel()) }

    /// H' (RFC 9106 section 3.3): Blake2b of the output's length and `input`, as long as `output`,
    /// chaining 64-byte hashes and keeping 32 bytes of each when it is longer than 64. The chain,
    /// derived from the input, is wiped.
    private static func variableLengthHash(of input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        let length = output.count
        var first = Blake2b(outputLength: min(length, 64))
        first.update(littleEndian: length)
        first.update(input)
        guard length > 64 else {
            first.finish(into: output)
            return
        }
        let chain = WipedBuffer(byteCount: 64)
        defer { chain.wipe() }
        first.finish(into: chain.bytes)
        let halves = (length + 31) / 32 - 2
        for index in 0..<halves {
            if index > 0 { Blake2b.hash(UnsafeRawBufferPointer(chain.bytes), into: chain.bytes) }
            UnsafeMutableRawBufferPointer(rebasing: output[(32 * index)..<(32 * index + 32)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: chain.bytes[..<32]))
        }
        Blake2b.hash(UnsafeRawBufferPointer(chain.bytes), into: UnsafeMutableRawBufferPointer(rebasing: output[(32 * halves)...]))
    }
}

/// Scratch memory for a derived secret, allocated once and wiped by its user (`defer { wipe() }`),
/// where an array could be copied on write and leave copies behind.
private struct WipedBuffer {
    let bytes: UnsafeMutableRawBufferPointer

    init(byteCount: Int) {
        bytes = .allocate(byteCount: byteCount, alignment: 64)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    func wipe() {
        Sodium.wipe(bytes)
        bytes.deallocate()
    }
}

/// Incremental Blake2b (libsodium's `crypto_generichash_blake2b`), unkeyed.
private struct Blake2b: ~Copyable {
    private let state: UnsafeMutableRawPointer
    private let outputLength: Int

    init(outputLength: Int) {
        self.outputLength = outputLength
        state = .allocate(byteCount: crypto_generichash_blake2b_statebytes(), alignment: 64)
        _ = crypto_generichash_blake2b_init(typedState, nil, 0, outputLength)
    }

    deinit {
        // libsodium's final wipes the state; one never finished is wiped here.
        sodium_memzero(state, crypto_generichash_blake2b_statebytes())
        state.deallocate()
    }

    /// Swift does not import the 64-byte-aligned state struct, so libsodium's functions take it opaquely.
    private var typedState: OpaquePointer { OpaquePointer(state) }

    mutating func update(_ bytes: [UInt8]) {
        _ = crypto_generichash_blake2b_update(typedState, bytes, UInt64(bytes.count))
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        _ = crypto_generichash_blake2b_update(typedState, bytes.baseAddress, UInt64(bytes.count))
    }

    /// Argon2's LE32 of a length or parameter.
    mutating func update(littleEndian value: Int) {
        withUnsafeBytes(of: UInt32(value).littleEndian) {
            _ = crypto_generichash_blake2b_update(typedState, $0.baseAddress, 4)
        }
    }

    /// Writes the hash, `outputLength` bytes, at the start of `output`.
    consuming func finish(into output: UnsafeMutableRawBufferPointer) {
        guard let start = output.baseAddress, output.count >= outputLength else {
            preconditionFailure("Blake2b output of \(output.count) bytes, \(outputLength) needed")
        }
        _ = crypto_generichash_blake2b_final(typedState, start.assumingMemoryBound(to: UInt8.self), outputLength)
    }

    /// Blake2b of `input`, as long as `output`; the two may overlap.
    static func hash(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        var state = Blake2b(outputLength: output.count)
        state.update(input)
        state.finish(into: output)
    }
}
