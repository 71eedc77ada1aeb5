/// The ways a person may sign in (`--sign-in-methods`): the sign-in owners refuse a method turned
/// off on every way in (`Accounts.requireSignIn`), the pages hide it. A method the backend cannot
/// do is hidden whatever is configured (`Capability.emailOTP`, `.magicLink`).
public enum SignInMethod: String, CaseIterable, Sendable, Hashable {
    case password
    /// A mailed one-time 6-digit code.
    case emailCode = "email-code"
    /// A mailed single-use link.
    case magicLink = "magic-link"

    /// The method in a sentence ("signing in with …").
    var phrase: String {
        switch self {
        case .password: "a password"
        case .emailCode: "a mailed code"
        case .magicLink: "a mailed link"
        }
    }

    /// Parses `password,email-code,magic-link`; nil names nothing, or something unknown.
    public static func parseList(_ text: String) -> Set<SignInMethod>? {
        var methods: Set<SignInMethod> = []
        for part in text.split(separator: ",") {
            guard let method = SignInMethod(rawValue: part.trimmingCharacters(in: .whitespaces).lowercased()) else {
                return nil
            }
            methods.insert(method)
        }
        return methods.isEmpty ? nil : methods
    }
}
