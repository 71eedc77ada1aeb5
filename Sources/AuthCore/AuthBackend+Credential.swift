import Foundation

/// What a remote backend needs to act as a signed-in user later (PocketBase's auth token, as the
/// JSON of an `AuthSession`). Opaque to the web layer, which keeps it beside the browser session.
public struct BackendCredential: Sendable, Hashable {
    public var value: String
    public init(_ value: String) { self.value = value }
}

/// A successful password check: the account and, for remote backends, the credential.
public struct BackendSignIn: Sendable, Equatable {
    public var user: User
    public var credential: BackendCredential?

    public init(user: User, credential: BackendCredential?) {
        self.user = user
        self.credential = credential
    }
}

extension AuthBackend {
    /// In-process backends have no credential to hand back.
    public func signInForSession(email: String, password: String) async throws -> BackendSignIn {
        BackendSignIn(user: try await signIn(email: email, password: password), credential: nil)
    }

    public func user(_ id: UserID, credential: BackendCredential?) async throws -> User {
        try await user(id)
    }

    public func setProfile(userID: UserID, patch: [String: JSONValue], credential: BackendCredential?) async throws -> User {
        try await setProfile(userID: userID, patch: patch)
    }

    public func renewedCredential(_ credential: BackendCredential) async throws -> BackendCredential? { nil }

    public func credential(for session: AuthSession) throws -> BackendCredential? { nil }

    public func impersonationCredential(of userID: UserID, duration: TimeInterval, actor: String) async throws
        -> BackendCredential?
    { nil }

    public func externalAuths(userID: UserID) async throws -> [ExternalAuth] {
        throw AuthError.notSupported(.externalSignIn)
    }

    public func signIn(with identity: ExternalIdentity, allowCreate: Bool) async throws -> ExternalSignIn {
        throw AuthError.notSupported(.externalSignIn)
    }

    public func link(_ identity: ExternalIdentity, to userID: UserID) async throws -> ExternalAuth {
        throw AuthError.notSupported(.externalSignIn)
    }

    public func unlink(provider: String, from userID: UserID) async throws {
        throw AuthError.notSupported(.externalSignIn)
    }
}
