import AuthCore
import Foundation
import Testing

@testable import Accounts
@testable import Store

/// Staff's rows in the one session store (`SessionBindings+Staff`): a token opens only the staff
/// door it was made for and never a person's session, lives by the staff windows
/// (`SessionWindows.staff`), and a renewal retires the old token.
@Suite struct StaffSessionRuleTests {
    private let staffKinds: [SessionKind] = [.console, .adminAPI, .pocketBaseSuperuser]

    private func superuser(_ h: AccountsHarness) async throws -> StaffMember {
        StaffMember(
            try await h.database.createSuperuser(id: "su1", email: "staff@example.com", passwordHash: "x", at: h.now))
    }

    @Test func aStaffTokenOpensOnlyItsOwnDoor() async throws {
        let h = try AccountsHarness()
        let bindings = h.accounts.sessions.bindings
        let token = try await bindings.bind(try await superuser(h), kind: .adminAPI, windows: .staff, request: try h.request())
            .token
        #expect(await bindings.staff(token: token, kind: .adminAPI, windows: .staff)?.superuser.email == "staff@example.com")
        for other in staffKinds where other != .adminAPI {
            #expect(await bindings.staff(token: token, kind: other, windows: .staff) == nil, "opened \(other)")
        }
        for kind in SessionKind.allCases {
            #expect(await bindings.current(token: token, kind: kind, idleTimeout: nil) == nil, "a person's \(kind)")
        }
    }

    @Test func aStaffSessionEndsIdleAndAtItsLifetime() async throws {
        let h = try AccountsHarness()
        let bindings = h.accounts.sessions.bindings
        let member = try await superuser(h)
        let idle = try await bindings.bind(member, kind: .console, windows: .staff, request: try h.request()).token
        h.advance(by: SessionWindows.staff.idleTimeout + 1)
        #expect(await bindings.staff(token: idle, kind: .console, windows: .staff) == nil, "open after the idle window")

        let used = try await bindings.bind(member, kind: .console, windows: .staff, request: try h.request()).token
        var elapsed: TimeInterval = 0
        while elapsed + 20 * 60 < SessionWindows.staff.lifetime {
            h.advance(by: 20 * 60)
            elapsed += 20 * 60
            #expect(await bindings.staff(token: used, kind: .console, windows: .staff) != nil, "ended at \(elapsed) s")
        }
        h.advance(by: SessionWindows.staff.lifetime - elapsed + 1)
        #expect(await bindings.staff(token: used, kind: .console, windows: .staff) == nil, "open past its lifetime")
    }

    @Test func aRenewalRetiresTheOldTokenAndKeepsTheEnd() async throws {
        let h = try AccountsHarness()
        let bindings = h.accounts.sessions.bindings
        let old = try await bindings.bind(try await superuser(h), kind: .console, windows: .staff, request: try h.request())
        let staff = try #require(await bindings.staff(token: old.token, kind: .console, windows: .staff))
        let new = try #require(try await bindings.renew(staff, kind: .console, request: try h.request()))
        #expect(await bindings.staff(token: old.token, kind: .console, windows: .staff) == nil)
        #expect(await bindings.staff(token: new, kind: .console, windows: .staff)?.session.expiresAt == old.expiresAt)
        #expect(try await bindings.renew(staff, kind: .console, request: try h.request()) == nil, "renewed a retired row")
    }
}
