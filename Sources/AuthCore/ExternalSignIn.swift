/// The account a provider sign-in reached, how, and the session it opened.
public struct ExternalSignIn: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case existingLink = "existing_link"
        case linkedByVerifiedEmail = "linked_by_verified_email"
        case created
    }

    public var session: AuthSession
    public var outcome: Outcome
    public var user: User { session.user }

    public init(session: AuthSession, outcome: Outcome) {
        self.session = session
        self.outcome = outcome
    }
}
