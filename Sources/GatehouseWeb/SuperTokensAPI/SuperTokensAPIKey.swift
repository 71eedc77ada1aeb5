import Secrets

/// The key a SuperTokens backend SDK sends as `api-key`: `--supertokens-api-key` when given, else
/// one made at first start, so the core is never open to whoever reaches the port. The made key is
/// derived from the key file's keyed-hash key — it lives as long as the install and never in the
/// database, so a copy of the SQLite file cannot call the core — and shown in the console and the
/// startup log.
public enum SuperTokensAPIKey {
    /// 32 letters and digits (the core takes keys of at least 20 of `a-z A-Z 0-9 = -`).
    static func generated(from hasher: KeyedHash) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        // 62 letters: the modulo's bias leaves each character ~5.9 bits, ~189 bits in all.
        let seed = hasher.derivedKey(for: "supertokens-api-key")
        return String(seed.map { alphabet[Int($0) % alphabet.count] })
    }
}
