import Accounts
import AuthCore
import Foundation

/// The callback's decision about a consumed flow, as a pure function tested on its own:
/// a flow moves `started → consumed` exactly once, and only the browser that started it, before
/// it expires, for the same provider (and, to link, the same signed-in account) may finish it.
enum OAuthFlowCheck {
    enum Refusal: Error, Equatable {
        case unknownState
        case replayed
        case expired
        case wrongProvider
        case otherBrowser
        case otherAccount

        var message: String {
            switch self {
            case .unknownState: "This sign-in link is not one Gatehouse started. Start again from the sign-in page."
            case .replayed: "This sign-in was already completed. Start again from the sign-in page."
            case .expired: "This sign-in took too long. Start again from the sign-in page."
            case .wrongProvider: "This answer came from another provider than the one you chose."
            case .otherBrowser: "This sign-in was started in another browser. Start again here."
            case .otherAccount: "You are signed in as someone else than when you started linking."
            }
        }

        var reason: String { String(describing: self) }
    }

    static func evaluate(
        _ flow: ProviderFlow?, provider: String, browserHash: String?, signedIn: UserID?,
        now: Date
    ) -> Result<ProviderFlow, Refusal> {
        guard let flow else { return .failure(.unknownState) }
        guard flow.consumedAt == nil else { return .failure(.replayed) }
        guard flow.expiresAt > now else { return .failure(.expired) }
        guard flow.provider == provider else { return .failure(.wrongProvider) }
        guard let browserHash, browserHash == flow.browserHash else { return .failure(.otherBrowser) }
        if flow.purpose == .link, flow.userID != signedIn { return .failure(.otherAccount) }
        return .success(flow)
    }
}
