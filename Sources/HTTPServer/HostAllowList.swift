/// The `Host` names a server answers to, checked before routing: the defence against DNS
/// rebinding, where a page on `evil.example` makes its name resolve to 127.0.0.1 and becomes
/// same-origin with everything served on loopback (https://en.wikipedia.org/wiki/DNS_rebinding).
///
/// IP literals are always allowed — a rebinding attack needs a name — as are `localhost` and
/// names under `.localhost` (RFC 6761 §6.3: they never leave the machine). Any other name must
/// be listed (the public URL's host, `--allowed-host`).
public struct HostAllowList: Sendable, Equatable {
    private let names: Set<String>

    /// `names` are host names without port; letter case and a trailing dot do not matter.
    public init(names: [String] = []) {
        self.names = Set(names.map(Self.normalized).filter { !$0.isEmpty })
    }

    /// Why a `Host` header is refused, as the reply's status and plain-text message.
    public enum Refusal: Error, Equatable {
        /// No `Host`, several, or one that is not `name[:port]` (RFC 9112 §3.2: 400).
        case malformed
        /// A well-formed name this server does not answer to (RFC 9110 §15.5.20: 421).
        case notAllowed(String)
    }

    /// Checks the `Host` header values of one request.
    public func check(_ values: [String]) -> Refusal? {
        guard values.count == 1, let (name, isIPLiteral) = Self.hostName(values[0]) else { return .malformed }
        if isIPLiteral || name == "localhost" || name.hasSuffix(".localhost") || names.contains(name) { return nil }
        return .notAllowed(name)
    }

    /// The name of `name[:port]` (lower-cased, no trailing dot) and whether it is an IP literal;
    /// nil when the value is not a host as RFC 3986 §3.2.2 writes one. Read as bytes: every request
    /// is checked, and names are ASCII (a non-ASCII byte is refused, never case-folded into ASCII).
    static func hostName(_ value: String) -> (String, Bool)? {
        var bytes = Array(value.utf8)[...]
        if bytes.first == UInt8(ascii: "[") {
            // An IPv6 literal: `[…]` with an optional port after it.
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let literal = bytes[(bytes.startIndex + 1)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }),
                isPort(bytes[(close + 1)...])
            else { return nil }
            return ("[" + String(decoding: literal.map(lowercased), as: UTF8.self) + "]", true)
        }
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            guard isPort(bytes[colon...]) else { return nil }
            bytes = bytes[..<colon]
        }
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard !bytes.isEmpty, bytes.count <= 253,
            labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.allSatisfy(isNameByte) })
        else { return nil }
        let isIPv4 = labels.count == 4 && labels.allSatisfy(isOctet)
        return (String(decoding: bytes.map(lowercased), as: UTF8.self), isIPv4)
    }

    /// `:` and up to five digits, or nothing.
    private static func isPort(_ text: ArraySlice<UInt8>) -> Bool {
        guard let first = text.first else { return true }
        let digits = text.dropFirst()
        return first == UInt8(ascii: ":") && digits.count <= 5 && digits.allSatisfy(isDigit)
    }

    /// Decimal digits worth at most 255 (leading zeros allowed, as `UInt8("007")` reads them).
    private static func isOctet(_ label: ArraySlice<UInt8>) -> Bool {
        label.allSatisfy(isDigit) && label.reduce(0) { min($0 * 10 + Int($1 - 0x30), 256) } <= 255
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (0x61...0x66).contains(lowercased(byte)) }

    /// A letter, digit, `-` or `_`, either case.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x61...0x7A).contains(lowercased(byte)) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }

    private static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
