/// Header values read on every API call (`Authorization`, `Content-Type`), parsed on their UTF-8
/// bytes: Foundation's `trimmingCharacters` walks a string as UTF-16 and was 12 % of a Descope `refresh`.
extension Request {
    /// The token of `Authorization: Bearer <token>` (the scheme in any case, RFC 9110 §11.1), without
    /// the spaces and tabs around it; nil without the header, with another scheme, or with no token.
    public var bearerToken: String? {
        guard let header = headers["Authorization"] else { return nil }
        return Self.token(afterScheme: Self.trimmingBlanks(Substring(header)))
    }

    /// The `Authorization` header's token, with or without the `Bearer` scheme in front of it (the
    /// PocketBase SDKs send a bare token); nil without one.
    public var bareOrBearerToken: String? {
        guard let header = headers["Authorization"] else { return nil }
        let value = Self.trimmingBlanks(Substring(header))
        if let token = Self.token(afterScheme: value) { return token }
        return value.isEmpty ? nil : String(value)
    }

    /// What follows `bearer ` in `value` (already trimmed), trimmed; nil when `value` has no such
    /// prefix or nothing after it.
    private static func token(afterScheme value: Substring) -> String? {
        let scheme = "bearer ".utf8
        let bytes = value.utf8
        guard bytes.count > scheme.count,
            zip(bytes, scheme).allSatisfy({ byte, expected in asciiLowercased(byte) == expected })
        else { return nil }
        let token = trimmingBlanks(Substring(bytes.dropFirst(scheme.count)))
        return token.isEmpty ? nil : String(token)
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// `text` without leading and trailing spaces and tabs (header values' optional whitespace,
    /// RFC 9110 §5.6.3). Both are one-byte scalars, so the bounds found on the bytes are scalar
    /// boundaries.
    static func trimmingBlanks(_ text: Substring) -> Substring {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return text[text.endIndex...] }
        return text[first..<bytes.index(after: last)]
    }
}
