/// Why a key could not be made or used, or a digest not computed. Verification never throws: a signature that does not hold,
/// for whatever reason, is `false`.
public enum SystemCryptoError: Error, Equatable, Sendable {
    /// The bytes are not a key of the kind asked for (a point off the curve, a scalar out of range,
    /// an RSA modulus of the wrong size).
    case invalidKey(String)
    /// libcrypto refused an operation that should not fail on a valid key (out of memory, say).
    case operationFailed(String)
    /// libcrypto has no digest of that name (or none of a fixed length).
    case unsupportedDigest(String)
}
