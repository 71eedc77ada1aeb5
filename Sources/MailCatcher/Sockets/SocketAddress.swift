import Foundation

/// An IPv4 or IPv6 address and port as a socket call returned it, for the bound port and for logs.
struct SocketAddress: Sendable, CustomStringConvertible {
    let host: String
    let port: Int

    /// Reads `storage` (filled by `accept` or `getsockname`); nil for a family other than IPv4/IPv6.
    init?(_ storage: sockaddr_storage) {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            var ip = address.sin_addr
            guard inet_ntop(AF_INET, &ip, &text, socklen_t(text.count)) != nil else { return nil }
            port = Int(UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            var ip = address.sin6_addr
            guard inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count)) != nil else { return nil }
            port = Int(UInt16(bigEndian: address.sin6_port))
        default:
            return nil
        }
        host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `127.0.0.1:2525` or `[::1]:2525`.
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
