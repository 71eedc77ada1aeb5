/// A cookie to set with `Set-Cookie` (RFC 6265 §4.1), secure by default: `HttpOnly`,
/// `SameSite=Lax`, `Path=/`.
public struct Cookie: Sendable, Equatable {
    /// How the cookie travels on cross-site requests.
    public enum SameSite: String, Sendable {
        case lax = "Lax"
        case strict = "Strict"
        case none = "None"
    }

    public var name: String
    public var value: String
    public var path: String
    public var domain: String?
    /// Lifetime in seconds; nil makes a session cookie, 0 deletes it.
    public var maxAge: Int?
    public var httpOnly: Bool
    public var secure: Bool
    public var sameSite: SameSite

    public init(
        name: String,
        value: String,
        path: String = "/",
        domain: String? = nil,
        maxAge: Int? = nil,
        httpOnly: Bool = true,
        secure: Bool = false,
        sameSite: SameSite = .lax
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
        self.httpOnly = httpOnly
        self.secure = secure
        self.sameSite = sameSite
    }

    /// A cookie that tells the browser to delete `name` now (`Max-Age=0`).
    public static func expired(name: String, path: String = "/", domain: String? = nil) -> Cookie {
        Cookie(name: name, value: "", path: path, domain: domain, maxAge: 0)
    }

    /// The `Set-Cookie` field value.
    ///
    /// Characters that would let a value or attribute break out of its place (`;`, `,`, space,
    /// quotes, controls, non-ASCII) are percent-encoded; `SameSite=None` always gets `Secure`,
    /// which browsers require.
    public var headerValue: String {
        var field: [UInt8] = []
        field.reserveCapacity(name.utf8.count + value.utf8.count + path.utf8.count + 64)
        Self.encode(name, allowed: Self.isTokenByte, into: &field)
        field.append(UInt8(ascii: "="))
        Self.encode(value, allowed: Self.isCookieOctet, into: &field)
        field.append(contentsOf: "; Path=".utf8)
        Self.encode(path, allowed: Self.isAttributeByte, into: &field)
        if let domain {
            field.append(contentsOf: "; Domain=".utf8)
            Self.encode(domain, allowed: Self.isAttributeByte, into: &field)
        }
        if let maxAge {
            field.append(contentsOf: "; Max-Age=".utf8)
            field.append(contentsOf: String(max(0, maxAge)).utf8)
        }
        if httpOnly {
            field.append(contentsOf: "; HttpOnly".utf8)
        }
        if secure || sameSite == .none {
            field.append(contentsOf: "; Secure".utf8)
        }
        field.append(contentsOf: "; SameSite=".utf8)
        field.append(contentsOf: sameSite.rawValue.utf8)
        return String(decoding: field, as: UTF8.self)
    }

    /// Appends `text`'s bytes, each one `allowed` refuses as `%XX`. Byte by byte: a page sets a
    /// cookie for every new visitor.
    private static func encode(_ text: String, allowed: (UInt8) -> Bool, into field: inout [UInt8]) {
        for byte in text.utf8 {
            if allowed(byte) {
                field.append(byte)
            } else {
                field.append(UInt8(ascii: "%"))
                field.append(hexDigits[Int(byte >> 4)])
                field.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// RFC 6265 cookie-octet (also excluding `%` so encoding stays unambiguous).
    private static func isCookieOctet(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x23...0x24, 0x26...0x2B, 0x2D...0x3A, 0x3C...0x5B, 0x5D...0x7E: true
        default: false
        }
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Attribute values: visible ASCII except `;`.
    private static func isAttributeByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ";")
    }
}
