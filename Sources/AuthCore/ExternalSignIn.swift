/// What a provider sign-in came to: the session (or the second step the account owes, or — from
/// Gatehouse's `ProviderSignIn` — the refusal), and how the identity met the account.
public struct ExternalSignIn: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case existingLink = "existing_link"
        case linkedByVerifiedEmail = "linked_by_verified_email"
        case created
    }

    public var result: SignInResult
    /// How the identity met the account; nil when it was refused.
    public var outcome: Outcome?

    public init(result: SignInResult, outcome: Outcome?) {
        self.result = result
        self.outcome = outcome
    }
}
