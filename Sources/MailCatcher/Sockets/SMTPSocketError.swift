import Foundation

/// Why one of the catcher's sockets failed: `start()` throws it (the listening side), and a
/// connection ends with it (logged at debug).
public enum SMTPSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The listen host is neither an IP literal nor a name `getaddrinfo` knows.
    case unresolvableHost(String, reason: String)
    /// A system call failed with `errno`.
    case systemCall(String, errno: Int32)
    /// The client sent nothing for the idle timeout.
    case readTimedOut
    /// The client took none of a reply for the idle timeout.
    case writeTimedOut

    /// The failed call and errno's text, e.g. `bind: Address already in use`.
    static func lastError(of call: String) -> SMTPSocketError {
        .systemCall(call, errno: errno)
    }

    public var description: String {
        switch self {
        case .unresolvableHost(let host, let reason): "cannot listen on \(host): \(reason)"
        case .systemCall(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .readTimedOut: "nothing received for the idle timeout"
        case .writeTimedOut: "nothing taken of a reply for the idle timeout"
        }
    }

    /// Out of descriptors or memory: a call that may well work a little later.
    var isExhaustion: Bool {
        guard case .systemCall(_, let code) = self else { return false }
        return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(code)
    }
}
