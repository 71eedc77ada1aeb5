import Foundation
import Store

/// Who holds the staff role, as the console's staff page lists them: each superuser with what
/// guards their sign-in, read from the tables that keep people's.
public struct StaffDirectory: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// A superuser, whether their authenticator app is on, and how many passkeys they hold.
    public struct Listing: Sendable {
        public var member: StaffMember
        public var twoStepOn: Bool
        public var passkeys: Int
    }

    /// Every superuser, in the order they were given the role.
    public func list() async throws -> [Listing] {
        var listings: [Listing] = []
        for row in try await env.database.superusers() {
            listings.append(
                Listing(
                    member: StaffMember(row), twoStepOn: try await env.database.totpStatus(.superuser(row.id)).enabled,
                    passkeys: try await env.database.passkeys(of: PasskeyOwner.superuser(row.id)).count))
        }
        return listings
    }
}
