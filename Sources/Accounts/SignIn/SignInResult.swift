import AuthCore

/// What a first sign-in step came to, as a value every front-end must switch over — so no way in
/// can hand out a session while the account still owes its second step (the seam signals that
/// step by throwing `AuthError.mfaRequired`; only operations catch it).
public enum SignInResult: Sendable {
    /// Signed in: the backend's session.
    case session(AuthSession)
    /// The first step was right; the account asks for its second (`SecondStepSignIn`).
    case secondStep(MFAChallenge)
}
