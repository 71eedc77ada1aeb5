internal import CSodium

/// Password hashes in the argon2 string format libsodium and PocketBase-era tools write
/// (`$argon2id$v=19$m=65536,t=2,p=1$SALT$TAG`, unpadded base64), made at libsodium's INTERACTIVE
/// limits: t=2 and m=64 MiB, above OWASP's m=19 MiB, t=2, p=1 floor. Verifies argon2id and argon2i
/// within `StoredPasswordHash.Bounds`. Blocking: call from a `BlockingWorkPool` thread.
enum Argon2id {
    static let parameters = Argon2.Parameters(
        variant: .argon2id, memoryKiB: crypto_pwhash_memlimit_interactive() / 1024,
        iterations: Int(crypto_pwhash_opslimit_interactive()), parallelism: 1)
    /// 1 MiB and one pass: `PasswordHasher.Cost.minimal`.
    static let minimalParameters = Argon2.Parameters(variant: .argon2id, memoryKiB: 1024, iterations: 1, parallelism: 1)
    private static let saltLength = 16
    private static let tagLength = 32

    static func hash(
        _ password: String, parameters: Argon2.Parameters = parameters, memory: Argon2Memory
    ) throws(SecretsError) -> String {
        let salt = SecureRandom.bytes(saltLength)
        let tag = try Argon2.tag(
            password: Array(password.utf8), salt: salt, tagLength: tagLength, parameters: parameters, memory: memory)
        return "$argon2id$v=19$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism)$"
            + base64(salt) + "$" + base64(tag)
    }

    /// True when `password` gives `hash`'s tag. `hash` must already have passed
    /// `StoredPasswordHash.parse`, which read `parameters` from it and held them to its bounds.
    static func verify(
        _ password: String, against hash: String, parameters: Argon2.Parameters, memory: Argon2Memory
    ) -> Bool {
        let fields = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, let salt = decodeBase64(fields[4]), let expected = decodeBase64(fields[5]),
            let tag = try? Argon2.tag(
                password: Array(password.utf8), salt: salt, tagLength: expected.count, parameters: parameters,
                memory: memory)
        else { return false }
        return KeyedHash.constantTimeEquals(tag, expected)
    }

    /// Standard base64 without padding, as libsodium writes salts and tags.
    private static func base64(_ bytes: [UInt8]) -> String {
        let variant = sodium_base64_VARIANT_ORIGINAL_NO_PADDING
        var text = [CChar](repeating: 0, count: sodium_base64_encoded_len(bytes.count, variant))
        _ = sodium_bin2base64(&text, text.count, bytes, bytes.count, variant)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// libsodium's strict decoding: nil unless every character is in the alphabet (no padding)
    /// and the leftover bits are zero.
    private static func decodeBase64(_ text: Substring) -> [UInt8]? {
        let characters = Array(text.utf8)
        var bytes = [UInt8](repeating: 0, count: characters.count * 3 / 4 + 1)
        var length = 0
        let status = characters.withUnsafeBufferPointer { characters in
            characters.withMemoryRebound(to: CChar.self) {
                sodium_base642bin(
                    &bytes, bytes.count, $0.baseAddress, $0.count, nil, &length, nil,
                    sodium_base64_VARIANT_ORIGINAL_NO_PADDING)
            }
        }
        guard status == 0 else { return nil }
        return Array(bytes.prefix(length))
    }
}
