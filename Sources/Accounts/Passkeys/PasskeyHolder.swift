import AuthCore
import Foundation
import HTTPServer
import Store

/// Whose passkeys an act of `Passkeys` is about: a signed-in person, or a superuser on the console.
/// The one owner reads here everything that differs between the two — the rows' holder, what the
/// authenticator is told, what a registration's challenge is bound to, the audit's events and
/// actor — so neither holder has ceremonies of its own. A superuser's passkeys are Gatehouse's own,
/// as superusers are, so they work whatever the users' backend; they are kept under the superuser
/// (`superuser_id`), with their own user handle, and their challenges are bound to the console (a
/// challenge issued by the account pages cannot be answered there, nor the reverse).
enum PasskeyHolder: Sendable {
    case person(SignedIn)
    case staff(Staff)

    /// The rows' holder.
    var owner: PasskeyOwner {
        switch self {
        case .person(let signedIn): .user(signedIn.user.id)
        case .staff(let staff): .superuser(staff.superuser.id)
        }
    }

    /// The session the act is asked in (its age decides `RecentSignIn`).
    var session: SessionRow {
        switch self {
        case .person(let signedIn): signedIn.session
        case .staff(let staff): staff.session
        }
    }

    /// The account a registration's challenge is issued for: a person's; a superuser's challenge is
    /// bound by `registrationBinding` instead.
    var challengeAccount: UserID? {
        switch self {
        case .person(let signedIn): signedIn.user.id
        case .staff: nil
        }
    }

    /// What a registration's challenge is bound to besides its account: the console and the superuser.
    var registrationBinding: String? {
        switch self {
        case .person: nil
        case .staff(let staff): "console-register\n" + staff.superuser.id
        }
    }

    /// The names the authenticator shows for the new passkey.
    var userName: String {
        switch self {
        case .person(let signedIn): signedIn.user.email
        case .staff(let staff): staff.superuser.email
        }
    }

    var displayName: String {
        switch self {
        case .person(let signedIn): signedIn.user.profile.name ?? signedIn.user.email
        case .staff(let staff): "\(staff.superuser.email) (console)"
        }
    }

    /// The acts recorded in the audit trail.
    enum Act {
        case added, addFailed, deleted
    }

    /// Records `act`: a person's as their own act (naming an impersonator and the front-end), a
    /// superuser's as a console act of theirs.
    func record(_ act: Act, in env: Accounts, via: String?, request: Request, data: [String: JSONValue]) async {
        switch self {
        case .person(let signedIn):
            await env.audit.recordOwnAct(event(act), of: signedIn, request: request, data: AuditTrail.data(data, via: via))
        case .staff(let staff):
            await env.audit.record(event(act), actor: staff.superuser.id, request: request, data: data)
        }
    }

    private func event(_ act: Act) -> AuditEvent {
        switch (self, act) {
        case (.person, .added): .passkeyAdded
        case (.person, .addFailed): .passkeyAddFailed
        case (.person, .deleted): .passkeyDeleted
        case (.staff, .added): .consolePasskeyAdded
        case (.staff, .addFailed): .consolePasskeyAddFailed
        case (.staff, .deleted): .consolePasskeyDeleted
        }
    }
}
