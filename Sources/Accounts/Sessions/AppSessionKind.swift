import Store

/// The compatible API whose tokens an app's sessions back (`AppSessions`): each keeps its rows
/// apart, so one API's token never opens another's.
public enum AppSessionKind: Sendable {
    case pocketBaseAPI, insForgeAPI, descopeAPI, superTokensCore

    /// The stored kind of the rows.
    var stored: SessionKind {
        switch self {
        case .pocketBaseAPI: .pocketBaseAPI
        case .insForgeAPI: .insForgeAPI
        case .descopeAPI: .descopeAPI
        case .superTokensCore: .superTokensCore
        }
    }
}
