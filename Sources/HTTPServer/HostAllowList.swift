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
    /// nil when the value is not a host as RFC 3986 §3.2.2 writes one.
    static func hostName(_ value: String) -> (String, Bool)? {
        var host = Substring(value)
        if host.hasPrefix("[") {
            // An IPv6 literal: `[…]` with an optional port after it.
            guard let close = host.firstIndex(of: "]") else { return nil }
            let literal = host[host.index(after: host.startIndex)..<close]
            let rest = host[host.index(after: close)...]
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), isPort(rest) else {
                return nil
            }
            return ("[" + literal.lowercased() + "]", true)
        }
        if let colon = host.lastIndex(of: ":") {
            guard isPort(host[colon...]) else { return nil }
            host = host[..<colon]
        }
        let name = normalized(String(host))
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.utf8.count <= 253,
            labels.allSatisfy({ label in
                !label.isEmpty && label.utf8.count <= 63
                    && label.unicodeScalars.allSatisfy(isNameScalar)
            })
        else { return nil }
        let isIPv4 = labels.count == 4 && labels.allSatisfy { $0.allSatisfy(\.isNumber) && (UInt8($0) != nil) }
        return (name, isIPv4)
    }

    private static func isPort(_ text: Substring) -> Bool {
        guard let first = text.first else { return true }
        let digits = text.dropFirst()
        return first == ":" && digits.count <= 5 && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_"
    }

    private static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
