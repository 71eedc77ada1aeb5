import HTTPServer
import WebAuthn

/// Why a passkey act was refused, with what the person is told. Every refusal of a sign-in is
/// audited (`sign_in.failed`, method `passkey`) with `reason`.
public enum PasskeyError: HTTPResponseError, Equatable {
    /// The authenticator's answer did not check out.
    case verification(WebAuthnError)
    /// The ceremony's challenge was never issued, or was spent already (a replay).
    case unknownChallenge
    case expiredChallenge
    /// No account holds this credential (deleted, or never registered here).
    case unknownCredential
    /// The credential is another account's than the one the ceremony was for.
    case otherAccount
    /// The credential is registered already.
    case alreadyRegistered
    /// Another sign-in with this passkey moved its counter first.
    case raced
    case invalidName
    /// No passkey with that id on this account.
    case notFound
    /// Deleting it would leave the account no way to sign in (no password, no provider, no other passkey).
    case lastSignInMethod
    /// The address has no passkeys here — or no account: the two answer alike.
    case noPasskeys
    /// The account is disabled or gone.
    case accountUnavailable
    /// Nobody has proven the account's address yet: a passkey opens no session for it (`AccountTrust`).
    case unproven
    case rateLimited(retryAfter: Int)
    /// The users' backend does not keep passkeys (a proxied remote backend).
    case notSupported

    public var status: Int {
        switch self {
        case .rateLimited: 429
        case .notFound, .noPasskeys: 404
        case .alreadyRegistered, .lastSignInMethod: 409
        case .notSupported: 501
        case .unknownCredential, .otherAccount, .accountUnavailable: 401
        case .unproven: 403
        default: 400
        }
    }

    public var message: String {
        switch self {
        case .verification(let error): error.message
        case .unknownChallenge: "This passkey request is unknown or was already used. Try again."
        case .expiredChallenge: "This passkey request has expired. Try again."
        case .unknownCredential: "This passkey is not registered here (it may have been deleted)."
        case .otherAccount: "This passkey belongs to another account."
        case .alreadyRegistered: "This passkey is already registered."
        case .raced: "This passkey was just used for another sign-in. Try again."
        case .invalidName: "Give the passkey a name of 1 to 64 characters."
        case .notFound: "There is no such passkey on your account."
        case .lastSignInMethod:
            "This passkey is your only way to sign in, so it can't be deleted. Set a password or create another passkey first."
        case .noPasskeys: "There are no passkeys for this account."
        case .accountUnavailable: "This account cannot sign in."
        case .unproven: "Verify your email address first: use the code or link we mailed you, then sign in with your passkey."
        case .rateLimited(let wait): "Too many attempts. Try again in \(wait) seconds."
        case .notSupported: "Passkeys are not supported by this backend."
        }
    }

    /// The audit trail's short reason.
    public var reason: String {
        switch self {
        case .verification(let error): error.code
        case .unknownChallenge: "unknown_challenge"
        case .expiredChallenge: "expired_challenge"
        case .unknownCredential: "unknown_credential"
        case .otherAccount: "other_account"
        case .alreadyRegistered: "already_registered"
        case .raced: "raced"
        case .invalidName: "invalid_name"
        case .notFound: "not_found"
        case .lastSignInMethod: "last_sign_in_method"
        case .noPasskeys: "no_passkeys"
        case .accountUnavailable: "account_unavailable"
        case .unproven: "unproven"
        case .rateLimited: "rate_limited"
        case .notSupported: "not_supported"
        }
    }
}
