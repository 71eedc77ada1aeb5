/// What `AuthClient.signUp` returns, in the InsForge/BosBase SDKs' shape: a session when the
/// account is usable at once, else a note that the email must be verified first.
public struct SignUpResponse: Sendable, Equatable {
    public var user: User?
    public var accessToken: String?
    public var refreshToken: String?
    public var requireEmailVerification: Bool?

    public init(user: User?, accessToken: String? = nil, refreshToken: String? = nil, requireEmailVerification: Bool?) {
        self.user = user
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.requireEmailVerification = requireEmailVerification
    }

    /// The account exists but must verify its email before signing in.
    public var needsEmailVerification: Bool { requireEmailVerification == true }
    /// The sign-up also signed the user in.
    public var hasSession: Bool { accessToken != nil }
}

/// What a backend answers to a sign-up: the account, and a session when no verification is needed.
public struct SignUpOutcome: Sendable, Equatable {
    public var user: User
    public var session: AuthSession?
    public var requireEmailVerification: Bool

    public init(user: User, session: AuthSession?, requireEmailVerification: Bool) {
        self.user = user
        self.session = session
        self.requireEmailVerification = requireEmailVerification
    }
}

/// What a backend answers to a verified email: the account and, where the backend signs in on
/// verification (the embedded one), a session.
public struct VerificationOutcome: Sendable, Equatable {
    public var user: User?
    /// Where the backend signs in on verification: the session, or the second step the account owes.
    public var signIn: SignInResult?

    public init(user: User?, signIn: SignInResult?) {
        self.user = user
        self.signIn = signIn
    }

    public init(user: User?, session: AuthSession?) {
        self.init(user: user, signIn: session.map(SignInResult.signedIn))
    }

    /// The session verification opened, if it signed in.
    public var session: AuthSession? { signIn?.session }

    /// The verified account, when the backend said whose address it was.
    public var verifiedUser: User? { user ?? session?.user }
}
