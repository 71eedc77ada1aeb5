import AuthCore

/// Who holds a credential kept in Store — a passkey, an authenticator key, recovery codes, a
/// session: a person, or a superuser (staff's own collection, as PocketBase keeps `_superusers`).
/// Each table names its holder in one of two columns (`user_id`, `superuser_id`), exactly one set,
/// and every query names the one it means, so neither's credential ever serves the other.
public enum CredentialHolder: Sendable, Hashable {
    case user(UserID)
    case superuser(String)

    /// People or staff, for an owner that must find only one kind's rows.
    public enum Kind: Sendable {
        case user, superuser
    }

    public var kind: Kind {
        switch self {
        case .user: .user
        case .superuser: .superuser
        }
    }

    /// The column that holds this kind of holder.
    var column: String {
        switch self {
        case .user: "user_id"
        case .superuser: "superuser_id"
        }
    }

    var key: String {
        switch self {
        case .user(let id): id.rawValue
        case .superuser(let id): id
        }
    }
}
