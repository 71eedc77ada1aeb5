import AuthCore
import Foundation
import ServerSeam
import TestScope
import Testing

/// Seeding, importing and bulk deletion through `AuthAdminAPI`, on every backend.
@Suite(.serialized, .stopsWhatItStarts) struct BulkAdminTests {
    /// bcrypt (cost 4) of "imported pw 1", as PocketBase stores passwords.
    static let bcryptHash = "$2b$04$1wcXefDMGpYnaQqt8bzkg.lFOlIH5bWNn8DvqNztOA6Gp1It7OLEm"

    @Test(arguments: BackendKind.administrable)
    func seedIsAllOrNothingAndSignsIn(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let admin = fixture.client().admin
            let prefix = "seed" + UUID().uuidString.prefix(6).lowercased()
            let ids = try await admin.seedUsers(
                UserSeed(
                    count: 5, pattern: "\(prefix)+{n}@example.com",
                    password: "seed passphrase 7", verified: true))
            #expect(ids.count == 5)
            #expect(try await admin.listUsers(UserQuery(search: prefix)).totalItems == 5)
            _ = try await fixture.client().signIn(email: "\(prefix)+5@example.com", password: "seed passphrase 7")
                .requireSession()

            let overlapping = await authError {
                _ = try await admin.seedUsers(
                    UserSeed(count: 8, pattern: "\(prefix)+{n}@example.com", password: "seed passphrase 7"))
            }
            guard case .validation(let fields)? = overlapping else {
                Issue.record("expected a validation error, got \(String(describing: overlapping))")
                return
            }
            #expect(fields.map(\.field) == ["pattern"])
            #expect(try await admin.listUsers(UserQuery(search: prefix)).totalItems == 5, "nothing written")

            #expect(try await admin.deleteUsers(ids) == 5)
            #expect(try await admin.listUsers(UserQuery(search: prefix)).totalItems == 0)
        }
    }

    @Test(arguments: BackendKind.administrable)
    func importKeepsBcryptHashesWhereTheBackendCan(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let admin = fixture.client().admin
            let plain = uniqueEmail("plain")
            let hashed = uniqueEmail("hashed")
            let rows = [
                ImportedUser(
                    row: 2, email: plain, verified: true, password: "plain passphrase 7",
                    profile: Profile(["name": "Plain Person"])),
                ImportedUser(row: 3, email: hashed, verified: true, passwordHash: Self.bcryptHash)
            ]
            switch kind {
            case .local:
                #expect(try await admin.importUsers(rows).count == 2)
                _ = try await fixture.client().signIn(email: hashed, password: "imported pw 1").requireSession()
            case .pocketbase, .gatehousePocketBaseAPI, .gatehouseInsForgeAPI, .gatehouseDescopeAPI, .gatehouseSuperTokensFDI:
                do {
                    _ = try await admin.importUsers(rows)
                    Issue.record("PocketBase cannot import a password hash")
                } catch let rejected as ImportRejected {
                    #expect(rejected.problems.map(\.row) == [3])
                }
                #expect(try await admin.listUsers(UserQuery(search: plain)).totalItems == 0, "nothing written")
                #expect(try await admin.importUsers([rows[0]]).count == 1)
            }
            let session = try await fixture.client().signIn(email: plain, password: "plain passphrase 7").requireSession()
            #expect(session.user.profile.name == "Plain Person")

            let bad = [ImportedUser(row: 2, email: "nope"), ImportedUser(row: 3, email: plain, password: "long enough pw")]
            do {
                _ = try await admin.importUsers(bad)
                Issue.record("a bad import was accepted")
            } catch let rejected as ImportRejected {
                // The embedded backend names taken addresses with the other problems; PocketBase finds
                // them only while creating, after every row passed its own checks.
                #expect(rejected.problems.map(\.row) == (kind == .local ? [2, 3] : [2]), "\(rejected.problems)")
            }
        }
    }
}
