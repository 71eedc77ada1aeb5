import Accounts
import AuthCore
import HTTPServer

/// One page request after the common work: CSRF checked (POST), form parsed, session looked up.
struct Visit: Sendable {
    let request: Request
    let parameters: PathParameters
    /// The posted form (empty for GET).
    let form: Parameters
    /// Token for the hidden `_csrf` field of every form on the page.
    let csrfToken: String
    let signedIn: SignedIn?
    let assetVersion: String
    /// The app whose sign-in is pending in this browser, whose page this is (`AppFlowBrand`).
    var appBrand: AppFlowBrand? = nil

    var user: User? { signedIn?.user }

    /// True while a superuser is viewing the pages as this user.
    var isImpersonating: Bool { signedIn?.session.impersonator != nil }

    /// A form field or query parameter typed once; a repeated key is an error, never a guess.
    func field(_ name: String) throws(RequestError) -> String {
        try form.single(name) ?? ""
    }

    func query(_ name: String) throws(RequestError) -> String? {
        try request.query.single(name)
    }

    /// The layout's keys (title, csrf, current user, notice) under the page's own keys, in one
    /// dictionary made large enough at once, as this runs on every page served.
    func context(title: String, _ page: [String: Any] = [:]) -> [String: Any] {
        var context = [String: Any](minimumCapacity: page.count + 6)
        for (key, value) in page { context[key] = value }
        func layout(_ key: String, _ value: Any) {
            if context.index(forKey: key) == nil { context[key] = value }
        }
        layout("title", title)
        layout("csrf", csrfToken)
        layout("assetVersion", assetVersion)
        if let user {
            layout("currentUser", ["email": user.email, "name": user.profile.name ?? ""])
        }
        if let user, let session = signedIn?.session, let actor = session.impersonator {
            var banner: [String: Any] = [
                "subject": user.email, "actor": actor, "endsAt": DisplayDate.dayAndMinute(session.expiresAt),
                "endsAtSeconds": Int(session.expiresAt.timeIntervalSince1970)
            ]
            // Why staff opened the account, as they said it at the start (issue 49, item 5).
            if let reason = signedIn?.impersonationReason {
                var said: [String: Any] = ["text": reason.text]
                if let ticket = reason.ticketURL { said["ticket"] = ticket }
                banner["reason"] = said
            }
            layout("impersonation", banner)
        }
        // Forms an impersonation cannot submit are left out, with the reason (`impersonating`).
        layout("impersonating", isImpersonating)
        // While an app's sign-in is pending, the page is the app's, and its links back to signing in
        // or up keep the app's request (a plain sign-in or sign-up page ends the flow).
        let appItems = appBrand?.request.queryItems ?? []
        if let appBrand {
            layout("brand", appBrand.app.hostedPageContext)
        }
        layout("signInURL", URLQuery.path("/auth/sign-in", appItems))
        layout("signUpURL", URLQuery.path("/auth/sign-up", appItems))
        if let code = try? request.query.single("notice"), let notice = Notice(rawValue: code) {
            layout("notice", notice.message)
        }
        return context
    }
}
