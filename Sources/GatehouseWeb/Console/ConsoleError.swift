import AuthCore
import HTTPServer

/// Console failures that become a status and a page.
enum ConsoleError: HTTPResponseError {
    case notFound(String)
    case unsupported(Capability)
    case refused(String)

    var status: Int {
        switch self {
        case .notFound: return 404
        case .unsupported: return 501
        case .refused: return 403
        }
    }

    var message: String {
        switch self {
        case .notFound(let message), .refused(let message): return message
        case .unsupported(let capability): return "\(capability.displayName) is not supported by this backend."
        }
    }
}
