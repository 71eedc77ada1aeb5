import Foundation

/// Why staff opened an account as its owner (issue 49, item 5): words such as "ticket 4821: can't
/// see invoices" and, optionally, a link to the ticket. Given at every start, required when the
/// server runs with `--impersonation-reason required`; kept on the impersonation's browser session
/// (its banner shows it) and in `impersonation.started` (the audit line and the webhook's data).
public struct ImpersonationReason: Sendable, Equatable {
    /// Whether a start must give a reason (`--impersonation-reason`).
    public enum Rule: String, Sendable, CaseIterable {
        case optional
        case required
    }

    /// The most a reason may say, and the longest ticket link.
    static let maximumLength = 500

    public let text: String
    /// An `http`/`https` address, never another scheme (the banner makes it a link).
    public let ticketURL: String?

    /// Why a reason is refused; `message` is what every front-end says (with a 400).
    public enum Problem: Error, Equatable, Sendable {
        case missing
        case tooLong
        case ticketNotALink

        public var message: String {
            switch self {
            case .missing: "Say why you are opening this account (a reason is required)."
            case .tooLong: "The reason and the ticket link are at most \(ImpersonationReason.maximumLength) characters each."
            case .ticketNotALink: "The ticket link must be an http or https address."
            }
        }
    }

    /// The reason as a form or an API sent it (trimmed; a blank text with a ticket link is the link
    /// alone); nil when both are blank.
    public init?(text: String, ticket: String) throws(Problem) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let ticket = ticket.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty && ticket.isEmpty { return nil }
        guard text.count <= Self.maximumLength, ticket.count <= Self.maximumLength else { throw .tooLong }
        if !ticket.isEmpty {
            guard let url = URL(string: ticket), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host?.isEmpty == false
            else { throw .ticketNotALink }
        }
        self.text = text
        ticketURL = ticket.isEmpty ? nil : ticket
    }

    /// What was stored on a session: the text and the ticket link, as `init(text:ticket:)` kept them.
    init?(stored text: String?, ticket: String?) {
        guard text != nil || ticket != nil else { return nil }
        self.text = text ?? ""
        ticketURL = ticket
    }
}

extension SignedIn {
    /// Why staff opened this impersonation session, for its banner; nil for the person's own
    /// sessions and for an impersonation started without a reason.
    public var impersonationReason: ImpersonationReason? {
        ImpersonationReason(stored: session.impersonationReason, ticket: session.impersonationTicket)
    }
}
