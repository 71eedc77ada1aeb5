import AuthCore
import Foundation
import TestScope
import Testing

/// One suite, the same assertions, through `AuthClient` against every backend: the embedded one in
/// process and a real PocketBase binary. Where backends differ by design (code vs link
/// verification) the test branches on the declared capability and asserts it — it never skips.
// Serialized: each case starts its own PocketBase, and the machines have two cores.
@Suite(.serialized, .stopsWhatItStarts) struct ConformanceTests {
    @Test(arguments: BackendKind.verifyingBeforeSignIn)
    func signUpVerifySignInProfileRefreshSignOut(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client()
            let events = EventLog()
            await client.addObserver { event, _ in events.append(event) }
            let email = uniqueEmail("ada")

            let signUp = try await client.signUp(email: email, password: "correct horse battery", name: "Ada Lovelace")
            #expect(signUp.needsEmailVerification)
            #expect(!signUp.hasSession)
            #expect(signUp.user?.email.lowercased() == email)
            #expect(try await client.getSession() == nil)

            // Not verified yet: the right password is refused with a typed error.
            #expect(
                await authError { try await client.signIn(email: email, password: "correct horse battery").requireSession() }
                    == .emailNotVerified(email: email))

            // Verify with exactly what was mailed, as the capabilities say it is mailed.
            let mailed = try await fixture.mailedVerification(to: email)
            switch mailed {
            case .code(let code):
                #expect(client.capabilities.contains(.emailCodeVerification))
                #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            case .linkToken:
                #expect(client.capabilities.contains(.emailLinkVerification))
                #expect(!client.capabilities.contains(.emailCodeVerification))
            }
            #expect(await authError { try await client.verifyEmail(email: email, code: "000000-not-it") } == .invalidCode)
            let verified = try await client.verifyEmail(email: email, code: mailed.secret)
            if let user = verified.user { #expect(user.emailVerified) }
            try await client.signOut()

            let session = try await client.signIn(email: email, password: "correct horse battery").requireSession()
            #expect(session.user.emailVerified)
            #expect(session.refreshable)
            #expect(session.expiresAt.map { $0 > Date() } == true)

            let me = try #require(try await client.getCurrentUser())
            #expect(me.id == session.user.id)
            #expect(me.email.lowercased() == email)
            #expect(me.profile.name == "Ada Lovelace")

            let updated = try await client.setProfile([
                "name": "Ada King", "bio": "Analyst", "favorite_number": .number(7), "tags": .array(["math", "poetry"])
            ])
            #expect(updated.profile.name == "Ada King")
            #expect(updated.profile.fields["favorite_number"] == .number(7))
            let removed = try await client.setProfile(["bio": .null])
            #expect(removed.profile.bio == nil)
            #expect(removed.profile.fields["tags"] == .array(["math", "poetry"]))
            #expect(try await client.getCurrentUser()?.profile == removed.profile)

            let refreshed = try await client.refreshSession()
            #expect(refreshed.user.id == me.id)
            let before = try #require(session.expiresAt)
            #expect(try #require(refreshed.expiresAt) >= before)
            #expect(try await client.getCurrentUser()?.id == me.id)

            try await client.signOut()
            #expect(try await client.getSession() == nil)
            #expect(try await client.getCurrentUser() == nil)
            #expect(await authError { try await client.setProfile(["bio": "x"]) } == .sessionExpired)

            let seen = events.all
            #expect(seen.contains(.signedIn) && seen.contains(.userUpdated) && seen.contains(.tokenRefreshed))
            #expect(seen.last == .signedOut)
        }
    }

    @Test(arguments: BackendKind.administrable)
    func wrongPasswordAndUnknownEmailAreInvalidCredentials(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client()
            let email = uniqueEmail("grace")
            _ = try await client.admin.createUser(NewUser(email: email, password: "right passphrase 7", verified: true))
            #expect(
                await authError { try await client.signIn(email: email, password: "wrong password").requireSession() }
                    == .invalidCredentials)
            #expect(
                await authError { try await client.signIn(email: uniqueEmail("nobody"), password: "whatever1").requireSession() }
                    == .invalidCredentials)
            #expect(try await client.getSession() == nil)
            #expect(
                try await client.signIn(email: email, password: "right passphrase 7").requireSession().user.email.lowercased()
                    == email)
        }
    }

    @Test(arguments: BackendKind.administrable)
    func duplicateEmailIsEmailExists(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client()
            let email = uniqueEmail("alan")
            _ = try await client.signUp(email: email, password: "passphrase one 71", name: nil)
            #expect(
                await authError { _ = try await client.signUp(email: email, password: "passphrase two 71", name: nil) }
                    == .emailExists)
            #expect(
                await authError { _ = try await client.admin.createUser(NewUser(email: email, password: "passphrase three 71")) }
                    == .emailExists)
        }
    }

    @Test(arguments: BackendKind.administrable)
    func impersonationTokenWorksButDoesNotRefresh(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let support = fixture.client()
            #expect(support.capabilities.contains(.impersonation))
            let target = try await support.admin.createUser(
                NewUser(
                    email: uniqueEmail("subject"), password: "subject passphrase 7", verified: true,
                    profile: Profile(["name": "Subject"])))

            let asUser = try await support.impersonate(userId: target.id, duration: 600)
            let session = try #require(try await asUser.getSession())
            #expect(!session.refreshable)
            #expect(session.expiresAt.map { $0 <= Date().addingTimeInterval(601) } == true)
            #expect(try await asUser.getCurrentUser()?.id == target.id)
            #expect(await authError { try await asUser.refreshSession() } == .sessionNotRefreshable)
            // The support client itself is not signed in as the user.
            #expect(try await support.getSession() == nil)
        }
    }

    @Test(arguments: BackendKind.administrable)
    func externalAuthsAreListedAndUnlinked(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client()
            #expect(client.capabilities.contains(.externalAuths))
            let email = uniqueEmail("linked")
            let user = try await client.admin.createUser(NewUser(email: email, password: "linked passphrase 7", verified: true))
            _ = try await client.admin.linkExternalAuth(userID: user.id, provider: "github", providerID: "gh-\(UUID())")
            _ = try await client.admin.linkExternalAuth(userID: user.id, provider: "google", providerID: "g-\(UUID())")

            try await client.signIn(email: email, password: "linked passphrase 7").requireSession()
            #expect(try await client.listExternalAuths(userId: user.id).map(\.provider).sorted() == ["github", "google"])
            try await client.unlinkExternalAuth(userId: user.id, provider: "github")
            let left = try await client.listExternalAuths(userId: user.id)
            #expect(left.map(\.provider) == ["google"])
            #expect(left.first?.userID == user.id)
        }
    }

    @Test(arguments: BackendKind.administrable)
    func adminListsSearchesCreatesUpdatesVerifiesAndDeletes(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let admin = fixture.client().admin
            let tag = UUID().uuidString.prefix(6).lowercased()
            var created: [User] = []
            for index in 0..<3 {
                created.append(
                    try await admin.createUser(
                        NewUser(
                            email: "staff\(index)-\(tag)@example.com", password: "staff passphrase 7", verified: index == 0,
                            profile: Profile(["name": .string("Staff \(index)")]))))
            }
            #expect(created.map(\.emailVerified) == [true, false, false])

            let firstPage = try await admin.listUsers(UserQuery(search: String(tag), page: 1, perPage: 2))
            #expect(firstPage.totalItems == 3)
            #expect(firstPage.users.count == 2)
            #expect(firstPage.totalPages == 2)
            let secondPage = try await admin.listUsers(UserQuery(search: String(tag), page: 2, perPage: 2))
            #expect(Set((firstPage.users + secondPage.users).map(\.id)) == Set(created.map(\.id)))
            #expect(try await admin.listUsers(UserQuery(search: "staff1-\(tag)")).users.map(\.id) == [created[1].id])

            let verified = try await admin.setVerified(created[1].id, true)
            #expect(verified.emailVerified)
            let renamed = try await admin.updateUser(created[2].id, UserUpdate(profilePatch: ["name": "Renamed", "team": "blue"]))
            #expect(renamed.profile.name == "Renamed")
            #expect(renamed.profile.fields["team"] == "blue")
            #expect(try await admin.user(created[2].id).profile == renamed.profile)

            try await admin.deleteUser(created[0].id)
            #expect(await authError { _ = try await admin.user(created[0].id) } == .userNotFound)
            #expect(try await admin.listUsers(UserQuery(search: String(tag))).totalItems == 2)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func authMethodsIncludePassword(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let methods = try await fixture.client().listAuthMethods()
            #expect(methods.password)
        }
    }
}
