import Accounts
import Foundation
import HTTPServer

/// `/_/staff`: the accounts that hold the staff role (superusers), each badged, with whether their
/// two-step sign-in is on and their passkeys; the role is given and taken with `gatehouse superuser`.
struct StaffPage: Sendable {
    let env: PageEnvironment

    static let path = "/_/staff"

    func register(on router: inout Router) {
        router.consolePage(.get, Self.path, env) { visit, staff in
            let listings = try await StaffDirectory(env: env.accounts).list()
            let page: [String: Any] = [
                "members": listings.map { listing -> [String: Any] in
                    [
                        "email": listing.member.email, "you": listing.member.id == staff.superuser.id,
                        "since": DisplayDate.dateTime(listing.member.createdAt), "twoStepOn": listing.twoStepOn,
                        "passkeys": listing.passkeys == 1 ? "1 passkey" : "\(listing.passkeys) passkeys"
                    ]
                }
            ]
            return env.renderer.page(
                .consoleStaff,
                visit.consoleContext(
                    title: "Staff", staff: staff, nav: .users, backendName: env.configuration.backendDescription, page))
        }
    }
}
