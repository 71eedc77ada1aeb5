import HTTPServer

/// Where the test controls — Descope's management API (`/v1/mgmt`, `/v2/mgmt`) and the
/// Mailpit-compatible mailbox API (`/api/v1`) — answer: by default only to a peer on loopback
/// (the machine the test suite runs on); `--test-controls` opens them to every peer (a CI
/// network), and `--no-test-controls` leaves them out of the server altogether.
public enum TestControls: Sendable, Equatable {
    case off
    case onLoopback
    case everywhere

    /// Whether the controls answer `request`.
    func admits(_ request: Request) -> Bool {
        switch self {
        case .off: false
        case .onLoopback: request.isLoopbackPeer
        case .everywhere: true
        }
    }

    /// Why a peer off loopback is refused.
    static let refusal = "Test controls answer only on loopback: start Gatehouse with --test-controls to open them to the network"
}
