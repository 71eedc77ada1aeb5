import AuthCore
import Foundation
import Testing

@testable import LocalAuth

/// `setProfile`: shallow merge, `null` removes, and every rule reported at once.
@Suite struct ProfileTests {
    func account(_ h: Harness) async throws -> User {
        try await h.backend.signUp(SignUpRequest(email: "ann@example.com", password: "quiet-otter-321", name: "Ann")).user
    }

    @Test func patchMergesAndNullRemoves() async throws {
        let h = try Harness()
        let user = try await account(h)
        h.clock.advance(by: 5)
        let patched = try await h.backend.setProfile(
            userID: user.id,
            patch: [
                "bio": .string("Hi"), "theme": .string("dark"), "avatar_url": .string("https://cdn.example.com/a.png")
            ])
        #expect(
            patched.profile
                == Profile([
                    "name": .string("Ann"), "bio": .string("Hi"), "theme": .string("dark"),
                    "avatar_url": .string("https://cdn.example.com/a.png")
                ]))
        #expect(patched.updatedAt == user.updatedAt.addingTimeInterval(5))
        let removed = try await h.backend.setProfile(userID: user.id, patch: ["theme": .null, "name": .string("Ann B")])
        #expect(
            removed.profile
                == Profile([
                    "name": .string("Ann B"), "bio": .string("Hi"),
                    "avatar_url": .string("https://cdn.example.com/a.png")
                ]))
        #expect(try await h.backend.user(user.id).profile == removed.profile)
    }

    @Test func everyBadFieldIsReportedAndNothingChanges() async throws {
        let h = try Harness()
        let user = try await account(h)
        let patch: [String: JSONValue] = [
            "name": .string(String(repeating: "n", count: 101)),
            "bio": .string(String(repeating: "b", count: 1001)),
            "avatar_url": .string("javascript:alert(1)"),
            "bad key!": .string("x"),
            "fine": .string("ok")
        ]
        await #expect(
            throws: AuthError.validation([
                FieldError(field: "avatar_url", message: "Must be an http or https address."),
                FieldError(field: "bad key!", message: "Keys are 1 to 64 letters, digits, underscores, dots or dashes."),
                FieldError(field: "bio", message: "Use at most 1000 characters."),
                FieldError(field: "name", message: "Use at most 100 characters.")
            ])
        ) { try await h.backend.setProfile(userID: user.id, patch: patch) }
        #expect(try await h.backend.user(user.id).profile == Profile(["name": .string("Ann")]))
    }

    @Test(arguments: ["ftp://example.com/a.png", "https://", "/relative.png", "https:///path"])
    func avatarMustBeAWebAddressWithAHost(url: String) async throws {
        let h = try Harness()
        let user = try await account(h)
        await #expect(
            throws: AuthError.validation([FieldError(field: "avatar_url", message: "Must be an http or https address.")])
        ) {
            try await h.backend.setProfile(userID: user.id, patch: ["avatar_url": .string(url)])
        }
    }

    @Test func wellKnownKeysMustBeText() async throws {
        let h = try Harness()
        let user = try await account(h)
        await #expect(throws: AuthError.validation([FieldError(field: "name", message: "Must be text.")])) {
            try await h.backend.setProfile(userID: user.id, patch: ["name": .number(3)])
        }
    }

    @Test func keyCountAndSizeAreLimited() async throws {
        let h = try Harness()
        let user = try await account(h)
        let manyKeys = Dictionary(uniqueKeysWithValues: (0..<50).map { ("k\($0)", JSONValue.bool(true)) })
        await #expect(throws: AuthError.validation([FieldError(field: "profile", message: "A profile holds at most 50 keys.")])) {
            try await h.backend.setProfile(userID: user.id, patch: manyKeys)  // 50 + "name" = 51
        }
        let big = Dictionary(
            uniqueKeysWithValues: (0..<17).map { ("k\($0)", JSONValue.string(String(repeating: "x", count: 1000))) })
        await #expect(
            throws: AuthError.validation([FieldError(field: "profile", message: "A profile holds at most 16 KiB of JSON.")])
        ) {
            try await h.backend.setProfile(userID: user.id, patch: big)
        }
    }

    @Test func unknownUserIsUserNotFound() async throws {
        let h = try Harness()
        await #expect(throws: AuthError.userNotFound) {
            try await h.backend.setProfile(userID: UserID("nosuchuser0000"), patch: ["bio": .string("x")])
        }
    }
}
