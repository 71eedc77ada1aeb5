/// The account a provider sign-in reached, and how.
public struct ExternalSignIn: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case existingLink = "existing_link"
        case linkedByVerifiedEmail = "linked_by_verified_email"
        case created
    }

    public var user: User
    public var outcome: Outcome

    public init(user: User, outcome: Outcome) {
        self.user = user
        self.outcome = outcome
    }
}
