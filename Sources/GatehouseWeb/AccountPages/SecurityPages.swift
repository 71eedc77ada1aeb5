import AuthCore
import HTTPServer

/// `/account/security`: a thin page of sections, each from its own partial — two-step sign-in
/// (`TOTPPages`, `partials/totp`) and, where the password flows are built, the password change.
struct SecurityPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.get, "/account/security", env) { visit in
            guard let signedIn = visit.signedIn else {
                return .redirect(to: URLQuery.path("/auth/sign-in", [("redirect", "/account/security")]))
            }
            return Self.render(
                env, visit, sections: ["totp": try await TOTPPages(env: env).section(visit, signedIn)], errors: FormErrors())
        }
    }

    /// The page with each section's context (`totp`, …) and the form errors of the one that was posted.
    static func render(
        _ env: PageEnvironment, _ visit: Visit, sections: [String: Any], errors: FormErrors, status: Int = 200
    ) -> Response {
        env.renderer.page(
            .accountSecurity,
            visit.context(title: "Security", sections.merging(errors.context) { $1 }), status: status)
    }
}
