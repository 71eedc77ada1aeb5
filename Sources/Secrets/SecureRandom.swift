internal import CSodium
import Foundation

/// Random values from libsodium's CSPRNG (`getrandom(2)` on Linux) for ids, codes and tokens.
public enum SecureRandom {
    /// Lower-case letters and digits: the alphabet of PocketBase-like record ids.
    private static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")

    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        Sodium.ready()
        var buffer = [UInt8](repeating: 0, count: count)
        randombytes_buf(&buffer, count)
        return buffer
    }

    /// 256 random bits as base64url without padding (43 chars): session, refresh and link tokens.
    public static func token() -> String {
        Base64URL.encode(bytes(32))
    }

    /// `count` decimal digits, each uniform (`randombytes_uniform` avoids modulo bias); the
    /// 6-digit email codes.
    public static func digits(_ count: Int = 6) -> String {
        Sodium.ready()
        return String((0..<count).map { _ in Character(String(randombytes_uniform(10))) })
    }

    /// 15 uniform characters of `[a-z0-9]` (~77 bits), the shape of PocketBase record ids.
    public static func userID() -> String {
        Sodium.ready()
        let upperBound = UInt32(idAlphabet.count)
        return String((0..<15).map { _ in idAlphabet[Int(randombytes_uniform(upperBound))] })
    }

    /// Whether `text` has the shape of `userID()`'s ids (an id a caller hands back).
    public static func isUserID(_ text: String) -> Bool {
        text.count == 15 && text.allSatisfy { idAlphabet.contains($0) }
    }

    /// `count` ids shaped like `userID()`, drawn from random bytes a megabyte at a time: seeding a
    /// million accounts would otherwise make 15 million `getrandom` calls. Bytes at or above the
    /// largest multiple of 36 are skipped, so every character stays uniform.
    public static func userIDs(_ count: Int) -> [String] {
        let usable = UInt8(256 / idAlphabet.count * idAlphabet.count)
        var ids: [String] = []
        ids.reserveCapacity(count)
        var characters: [Character] = []
        characters.reserveCapacity(15)
        while ids.count < count {
            for byte in bytes(1 << 20) where byte < usable {
                characters.append(idAlphabet[Int(byte) % idAlphabet.count])
                if characters.count == 15 {
                    ids.append(String(characters))
                    characters.removeAll(keepingCapacity: true)
                    if ids.count == count { break }
                }
            }
        }
        return ids
    }
}
