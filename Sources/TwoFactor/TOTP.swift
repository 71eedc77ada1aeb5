import Foundation
import Secrets
import SystemCrypto

/// RFC 6238 time-based one-time passwords as authenticator apps generate them: HMAC-SHA1, 6 digits, 30-second steps.
public struct TOTP: Sendable {
    /// Number of digits in a code.
    public static let digits = 6
    /// Length of one time step, in seconds.
    public static let period: Int64 = 30

    public init() {}

    /// The code for `secret` at `date`, zero-padded to six digits.
    public static func code(secret: [UInt8], at date: Date) throws(SystemCryptoError) -> String {
        try code(secret: secret, step: TOTP().step(at: date))
    }

    /// The RFC 6238 time step (counter) containing `date`: whole periods since the Unix epoch.
    public func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(Self.period)).rounded(.down))
    }

    /// Checks `code` against the steps within `window` of the one containing `date` (±1 by default, for clock
    /// drift and typing time) and returns the step it matched, or nil.
    ///
    /// Spaces in `code` are ignored; anything else must be exactly six ASCII digits. Every candidate step is
    /// compared in constant time. A code stays valid for its whole window, so the caller must store the returned
    /// step per account and refuse any later match whose step is not greater than the stored one: that is what
    /// stops a code from being replayed, including inside the same 30 seconds.
    public func matchingStep(
        _ code: String, secret: [UInt8], at date: Date, window: Int = 1
    ) throws(SystemCryptoError) -> Int64? {
        let typed = Array(code.utf8.filter { $0 != UInt8(ascii: " ") })
        guard typed.count == Self.digits, typed.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        let current = step(at: date)
        let window = Int64(max(0, window))
        var matched: Int64?
        for candidate in (current - window)...(current + window) where candidate >= 0 {
            let expected = Array(try Self.code(secret: secret, step: candidate).utf8)
            if KeyedHash.constantTimeEquals(expected, typed) && matched == nil {
                matched = candidate
            }
        }
        return matched
    }

    /// HOTP (RFC 4226) for one counter value, with dynamic truncation to six digits.
    static func code(secret: [UInt8], step: Int64) throws(SystemCryptoError) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Array($0) }
        let mac = try HMAC.sha1(key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let truncated =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let value = truncated % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
