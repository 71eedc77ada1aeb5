internal import CSodium

/// libsodium's argon2id string format (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`) at the INTERACTIVE
/// limits: t=2 and m=64 MiB, above OWASP's m=19 MiB, t=2, p=1 floor. Blocking: call from a
/// `BlockingWorkPool` thread.
enum Argon2id {
    private static let opsLimit = UInt64(crypto_pwhash_opslimit_interactive())
    private static let memLimit = crypto_pwhash_memlimit_interactive()

    /// True for hashes this verifier understands (libsodium verifies argon2i and argon2id).
    static func recognises(_ hash: String) -> Bool {
        hash.hasPrefix("$argon2id$") || hash.hasPrefix("$argon2i$")
    }

    static func hash(_ password: String) throws(SecretsError) -> String {
        Sodium.ready()
        var output = [CChar](repeating: 0, count: crypto_pwhash_strbytes())
        // The explicit length keeps every byte of the password, even after an embedded NUL.
        let status = crypto_pwhash_str(&output, password, UInt64(password.utf8.count), opsLimit, memLimit)
        guard status == 0 else { throw .hashingFailed }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func verify(_ password: String, against hash: String) -> Bool {
        Sodium.ready()
        return crypto_pwhash_str_verify(hash, password, UInt64(password.utf8.count)) == 0
    }

    /// True when `hash` was made with other (older, weaker) parameters or is malformed.
    static func needsRehash(_ hash: String) -> Bool {
        Sodium.ready()
        return crypto_pwhash_str_needs_rehash(hash, opsLimit, memLimit) != 0
    }
}
