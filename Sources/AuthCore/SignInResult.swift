/// What a sign-in came to, as a value every caller switches over — so no way in can hand out a
/// session while the account still owes its second step. The seam answers it (a backend throws
/// only what it could not judge), every sign-in owner in Gatehouse answers it with its refusals
/// judged, and each API family renders it in its own shape in one place.
public enum SignInResult: Sendable, Equatable {
    /// Signed in: the backend's session.
    case signedIn(AuthSession)
    /// The first step was right; the account owes its second, of one of the challenge's `methods`.
    case secondStep(MFAChallenge)
    /// Not signed in, and why.
    case refused(SignInRefusal)

    /// The session when signed in, else nil.
    public var session: AuthSession? {
        if case .signedIn(let session) = self { return session }
        return nil
    }
}

/// Why a sign-in was refused, in the words every way in answers alike.
public enum SignInRefusal: Sendable, Equatable {
    /// A wrong password or an unknown address: deliberately one reason.
    case invalidCredentials
    /// The right password for an account staff disabled: said only after the right password.
    case disabled
    /// The password was right, but the address is still to verify.
    case emailNotVerified(email: String)
    /// A wrong or unknown code or link.
    case wrongCode
    /// A code, link or pending second step that expired, was spent or ran out of tries.
    case expired
    /// The source spent its tries, or the (address, source) pair is backing off: nothing reached
    /// the account, and an unknown address is told the same.
    case throttled(retryAfter: Int)
    /// A mailed code for an account whose second step is its authenticator app.
    case wrongMethod
    /// A magic link opened in another browser than the one that asked: nothing was spent.
    case openedElsewhere(email: String)
    /// The provider identity was refused (a conflict, sign-up closed).
    case provider(ExternalAuthError)

    /// The refusal as the error the API families already render.
    public var error: any Error {
        switch self {
        case .invalidCredentials: AuthError.invalidCredentials
        case .disabled: AccountDisabled()
        case .emailNotVerified(let email): AuthError.emailNotVerified(email: email)
        case .wrongCode, .wrongMethod: AuthError.invalidCode
        case .expired: AuthError.codeExpired
        case .throttled(let wait): AuthError.rateLimited(retryAfter: wait)
        case .openedElsewhere(let email): AuthError.magicLinkOpenedElsewhere(email: email)
        case .provider(let error): error
        }
    }
}

/// A backend's answer that the account owes its second step, thrown inside a remote backend's HTTP
/// layer and turned into `SignInResult.secondStep` by the call that signs in.
struct SecondStepOwed: Error {
    let challenge: MFAChallenge
}
