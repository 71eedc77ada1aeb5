import AuthCore

/// A backend that makes guest accounts — an account with no address of its own and no password,
/// which the Rownd plugin's `guest` route hands a session — and upgrades one in place when its
/// holder signs up: the embedded one. Others answer `notSupported(.userAdministration)`.
public protocol GuestSignUps: AuthAPI {
    /// A new guest account, with a session (this value's `SessionClient`).
    func signUpGuest() async throws -> SignUpOutcome
    /// Guest `id` given the sign-up's address and password, as `signUp` checks and mails them (the
    /// same id, profile and sessions); a session opened as `signUp` opens one. `.emailExists` when
    /// the address has an account, `.userNotFound` when `id` is no guest: nothing changes.
    func upgradeGuest(_ id: UserID, to signUp: SignUpRequest) async throws -> SignUpOutcome
    /// `signIn(otpID:code:)` by guest `guest`'s session: an address without an account upgrades
    /// the guest (same id, profile and sessions) instead of making one; one with an account signs
    /// in to it, the guest left as it was.
    func signIn(otpID: String, code: String, upgrading guest: UserID) async throws -> SignInResult
    /// `signIn(magicLinkToken:browserBinding:)` the same way.
    func signIn(magicLinkToken: String, browserBinding: String?, upgrading guest: UserID) async throws -> SignInResult
    /// Whether account `id` is a guest.
    func isGuest(_ id: UserID) async throws -> Bool
}

extension AuthAPI {
    /// This backend as `GuestSignUps`; `notSupported` elsewhere.
    public func guestSignUps() throws -> any GuestSignUps {
        guard let backend = self as? any GuestSignUps else { throw AuthError.notSupported(.userAdministration) }
        return backend
    }
}
