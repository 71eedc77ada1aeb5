/// Something a backend may or may not be able to do. Pages ask before offering a feature and show
/// "not supported by this backend" instead of failing.
public enum Capability: String, Sendable, Hashable, CaseIterable, Codable {
    case emailCodeVerification
    case emailLinkVerification
    case profile
    case externalAuths
    case impersonation
    case userAdministration
}
