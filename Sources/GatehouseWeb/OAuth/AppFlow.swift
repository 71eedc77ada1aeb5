import Foundation
import HTTPServer
import Secrets

/// An app sign-in in progress in this browser: the app's request (callback, PKCE challenge, client
/// type) sealed in the `gh_app` cookie when the hosted page is shown, so that every way through
/// Gatehouse's pages — sign-up and verification, forgot password, email code, magic link, passkey,
/// second step — ends at `/auth/app/return`, which checks the callback against the app's registered
/// URLs again and hands the app its code. The seal is a keyed hash: a browser cannot write its own.
struct AppFlow: Sendable {
    static let cookieName = "gh_app"
    /// Long enough to read a verification or reset mail; the codes in them live no longer.
    static let lifetime: TimeInterval = 30 * 60
    /// Where a sign-in that belongs to an app flow continues.
    static let returnPath = "/auth/app/return"

    /// What the cookie holds: the request and when it was made (to tell a sign-in made for this
    /// request from a session that was already there).
    struct Ticket: Codable, Equatable {
        var request: AppSignInRequest
        var started: Date
    }

    let hasher: KeyedHash

    /// The keyed hash of the payload, prefixed so it matches no other hash the server keeps.
    private func seal(_ payload: String) -> String { hasher.hex("gh_app seal\n" + payload) }

    /// `BASE64URL(JSON).HMAC`.
    func sealed(_ ticket: Ticket) -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let payload = Base64URL.encode(Array((try? encoder.encode(ticket)) ?? Data()))
        return payload + "." + seal(payload)
    }

    /// The ticket in `value`, when its seal holds and it has not outlived `lifetime`.
    func opened(_ value: String?, now: Date) -> Ticket? {
        guard let value, let dot = value.lastIndex(of: ".") else { return nil }
        let payload = String(value[..<dot])
        guard KeyedHash.constantTimeEquals(seal(payload), String(value[value.index(after: dot)...])),
            let bytes = Base64URL.decode(payload)
        else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let ticket = try? decoder.decode(Ticket.self, from: Data(bytes)),
            ticket.started <= now.addingTimeInterval(60), now.timeIntervalSince(ticket.started) < Self.lifetime
        else { return nil }
        return ticket
    }

    /// Starts (or restarts) the flow for `request` in this browser.
    func remember(_ request: AppSignInRequest, in response: inout Response, now: Date, secure: Bool) {
        response.setCookie(
            Self.cookie(sealed(Ticket(request: request, started: now)), maxAge: Int(Self.lifetime), secure: secure))
    }

    /// Ends the flow: the app has its code, or the person went on without the app.
    static func forget(in response: inout Response, secure: Bool) {
        response.setCookie(cookie("", maxAge: 0, secure: secure))
    }

    /// Whether this browser carries a flow (checked in full by `/auth/app/return`).
    static func isPending(_ request: Request) -> Bool {
        !(request.cookies[cookieName] ?? "").isEmpty
    }

    /// Where a finished sign-in goes: back to the app when a flow is pending, else `fallback`.
    static func landing(_ request: Request, otherwise fallback: String) -> String {
        isPending(request) ? returnPath : fallback
    }

    private static func cookie(_ value: String, maxAge: Int, secure: Bool) -> Cookie {
        // Lax, so a mailed link opened in this browser (a top-level GET) still carries it.
        Cookie(name: cookieName, value: value, path: "/auth", maxAge: maxAge, httpOnly: true, secure: secure, sameSite: .lax)
    }
}
