/// The collections the PocketBase-compatible API serves, with PocketBase's own fixed ids (SDKs read
/// them: BosBase's `isSuperuser` looks for `pbc_3142635823`).
enum PocketBaseCollection: String, Sendable {
    case users
    case superusers = "_superusers"
    case externalAuths = "_externalAuths"

    var id: String {
        switch self {
        case .users: "_pb_users_auth_"
        case .superusers: "pbc_3142635823"
        case .externalAuths: "pbc_2281828961"
        }
    }

    /// How long its auth tokens live (PocketBase's defaults: 5 days for users, 1 day for superusers).
    var tokenLifetime: Int {
        switch self {
        case .users: 432_000
        case .superusers: 86_400
        case .externalAuths: 0
        }
    }

    init?(idOrName: String) {
        if let named = Self(rawValue: idOrName) {
            self = named
        } else if let byID = [Self.users, .superusers, .externalAuths].first(where: { $0.id == idOrName }) {
            self = byID
        } else {
            return nil
        }
    }
}
