internal import CSodium
import Foundation

/// Authenticated symmetric encryption for small secrets at rest (libsodium `crypto_secretbox`,
/// XSalsa20-Poly1305). A sealed value is `nonce ‖ ciphertext`; a fresh random nonce every time.
public struct SecretBox: Sendable {
    public static let keyLength = 32
    private static let nonceLength = 24
    private static let macLength = 16

    private let key: [UInt8]

    public init(key: [UInt8]) throws(SecretsError) {
        guard key.count == Self.keyLength else { throw .invalidKeyLength(key.count) }
        Sodium.ready()
        self.key = key
    }

    /// Encrypts `plaintext` under a new random nonce.
    public func seal(_ plaintext: String) -> [UInt8] {
        let message = Array(plaintext.utf8)
        let nonce = SecureRandom.bytes(Self.nonceLength)
        var cipher = [UInt8](repeating: 0, count: message.count + Self.macLength)
        // Cannot fail: buffer sizes follow the libsodium contract.
        _ = crypto_secretbox_easy(&cipher, message, UInt64(message.count), nonce, key)
        return nonce + cipher
    }

    /// Decrypts a value made by `seal`; throws when it was altered or sealed under another key.
    public func open(_ sealed: [UInt8]) throws(SecretsError) -> String {
        guard sealed.count >= Self.nonceLength + Self.macLength else { throw .openFailed }
        let nonce = Array(sealed[..<Self.nonceLength])
        let cipher = Array(sealed[Self.nonceLength...])
        var message = [UInt8](repeating: 0, count: cipher.count - Self.macLength)
        guard crypto_secretbox_open_easy(&message, cipher, UInt64(cipher.count), nonce, key) == 0 else {
            throw .openFailed
        }
        return String(decoding: message, as: UTF8.self)
    }
}
