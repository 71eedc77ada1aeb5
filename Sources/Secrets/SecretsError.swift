/// Failures of the cryptographic primitives; none carries secret material.
public enum SecretsError: Error, Sendable, Equatable {
    /// A keyed-hash key of the wrong length (the value is the length that was given).
    case invalidKeyLength(Int)
    /// libsodium could not allocate the memory argon2id needs.
    case hashingFailed
    /// A sealed secret was altered or sealed under another key.
    case openFailed
    /// A key file that could not be created or read.
    case keyFile(path: String, reason: String)
}
