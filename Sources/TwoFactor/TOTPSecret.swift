/// A TOTP shared secret: 20 random bytes (160 bits, the HMAC-SHA1 block-size recommendation of RFC 4226),
/// shown to people as base32 and handed to authenticator apps as an `otpauth://` URL.
public struct TOTPSecret: Sendable, Equatable {
    /// Number of random bytes in a new secret.
    public static let byteCount = 20

    /// The raw secret, the HMAC key for `TOTP`.
    public let bytes: [UInt8]

    /// A fresh secret from the system's cryptographically secure generator.
    public init() {
        var generator = SystemRandomNumberGenerator()
        bytes = (0..<Self.byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Wraps existing secret bytes (as read back from storage).
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses a base32 secret leniently (see `Base32.decode`); nil if it is not base32 or is empty.
    public init?(base32: String) {
        guard let bytes = Base32.decode(base32), !bytes.isEmpty else { return nil }
        self.bytes = bytes
    }

    /// The secret as unpadded uppercase base32, for manual entry.
    public var base32: String { Base32.encode(bytes) }

    /// The Key Uri Format URL authenticator apps read from a QR code:
    /// `otpauth://totp/ISSUER:ACCOUNT?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30`.
    ///
    /// Issuer and account are percent-encoded (everything but RFC 3986 unreserved characters, so a space becomes
    /// `%20` and `@` becomes `%40`); the `:` between them stays literal. The issuer is repeated as a parameter,
    /// which is what current apps use to group accounts.
    public func provisioningURL(issuer: String, account: String) -> String {
        let issuerText = Self.percentEncoded(issuer)
        let label = issuerText + ":" + Self.percentEncoded(account)
        return "otpauth://totp/\(label)?secret=\(base32)&issuer=\(issuerText)&algorithm=SHA1&digits=\(TOTP.digits)"
            + "&period=\(TOTP.period)"
    }

    /// Percent-encodes the UTF-8 of `text`, keeping only RFC 3986 unreserved characters.
    private static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
