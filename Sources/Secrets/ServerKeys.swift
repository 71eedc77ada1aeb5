import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's two keys, kept in one 0600 file beside the database and never in it, so a copy of
/// the SQLite file alone can neither unseal provider secrets nor reverse a stored code's hash
/// (a 6-digit code under a known key falls to a million guesses in under a second).
public struct ServerKeys: Sendable {
    /// Seals provider client secrets (`SecretBox`).
    public let secretBox: [UInt8]
    /// Keys the hashes of stored codes, link tokens and sessions (`KeyedHash`).
    public let keyedHash: [UInt8]

    static let keyLength = 32

    /// The keys in `path`, creating the file (64 random bytes, mode 0600) when it does not exist.
    /// A 32-byte file from before the keyed-hash key moved here holds the secretbox key only: it is
    /// extended with `legacyKeyedHash()` — the key the database used to hold, so codes and sessions
    /// stored under it keep working — or a new key when there is none, and replaced atomically.
    public static func loadOrCreate(path: String, legacyKeyedHash: () throws -> [UInt8]?) throws -> ServerKeys {
        if !FileManager.default.fileExists(atPath: path) {
            let keys = ServerKeys(secretBox: SecureRandom.bytes(keyLength), keyedHash: SecureRandom.bytes(keyLength))
            // O_EXCL inside `create`: of two processes starting at once, one wins; the other reads it.
            if (try? keys.write(to: path, replacing: false)) != nil { return keys }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SecretsError.keyFile(path: path, reason: "could not read")
        }
        let bytes = Array(data)
        switch bytes.count {
        case 2 * keyLength:
            return ServerKeys(secretBox: Array(bytes[..<keyLength]), keyedHash: Array(bytes[keyLength...]))
        case keyLength:
            let legacy = try legacyKeyedHash()
            let keys = ServerKeys(
                secretBox: bytes, keyedHash: legacy?.count == keyLength ? legacy ?? [] : SecureRandom.bytes(keyLength))
            try keys.write(to: path, replacing: true)
            return keys
        default:
            throw SecretsError.keyFile(path: path, reason: "expected \(2 * keyLength) bytes, found \(bytes.count)")
        }
    }

    /// Writes both keys to `path` with mode 0600: a new file (failing if one appeared meanwhile),
    /// or a temporary file renamed over the old one, so a crash never leaves half a key file.
    private func write(to path: String, replacing: Bool) throws(SecretsError) {
        let target = replacing ? path + ".new" : path
        let flags = O_WRONLY | O_CREAT | (replacing ? O_TRUNC : O_EXCL)
        let fd = open(target, flags, 0o600)
        guard fd >= 0 else { throw .keyFile(path: target, reason: "could not create (errno \(errno))") }
        let bytes = secretBox + keyedHash
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, bytes.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0 else {
            throw .keyFile(path: target, reason: "could not write (errno \(errno))")
        }
        if replacing, rename(target, path) != 0 {
            throw .keyFile(path: path, reason: "could not replace (errno \(errno))")
        }
    }
}
