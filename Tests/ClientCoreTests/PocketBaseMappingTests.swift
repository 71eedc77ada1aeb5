import Foundation
import Testing

@testable import AuthCore

/// PocketBase's answers as Gatehouse reads them, without a server: the error envelope, the token
/// claims and the record shape. The conformance suite checks the same against the real binary.
@Suite struct PocketBaseMappingTests {
    private func error(_ status: Int, _ body: String, _ call: PocketBaseHTTP.Call = .other, retryAfter: Int? = nil) -> AuthError {
        PocketBaseHTTP.error(status: status, body: Data(body.utf8), call: call, retryAfter: retryAfter)
    }

    @Test func errorEnvelopesBecomeTypedErrors() {
        #expect(error(400, #"{"status":400,"message":"Failed to authenticate.","data":{}}"#, .signIn) == .invalidCredentials)
        #expect(
            error(
                400,
                #"{"status":400,"message":"Failed to create record.","data":{"email":{"code":"validation_not_unique","message":"Value must be unique."}}}"#,
                .signUp) == .emailExists)
        #expect(
            error(
                400,
                #"{"status":400,"message":"x","data":{"token":{"code":"validation_invalid_token_claims","message":"Missing email token claim."}}}"#,
                .verify) == .invalidCode)
        #expect(
            error(
                400,
                #"{"status":400,"message":"x","data":{"passwordConfirm":{"code":"validation_values_mismatch","message":"Values don't match."}}}"#
            )
                == .validation([FieldError(field: "password", message: "Values don't match.")]))
        #expect(
            error(401, #"{"status":401,"message":"The request requires valid record authorization token.","data":{}}"#)
                == .sessionExpired)
        #expect(
            error(404, #"{"status":404,"message":"The requested resource wasn't found.","data":{}}"#, .adminRecord)
                == .userNotFound)
        #expect(
            error(404, #"{"status":404,"message":"The requested resource wasn't found.","data":{}}"#, .ownRecord)
                == .sessionExpired)
        #expect(
            error(429, #"{"status":429,"message":"Too Many Requests.","data":{}}"#, retryAfter: 7) == .rateLimited(retryAfter: 7))
        #expect(error(500, "not json") == .server(status: 500, code: "pocketbase_500", message: "PocketBase answered 500."))
    }

    @Test func tokenClaimsAreReadWithoutTheKey() throws {
        // A real impersonation token from PocketBase 0.40.6 (expired long ago; only the payload is read).
        let jwt =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJjb2xsZWN0aW9uSWQiOiJfcGJfdXNlcnNfYXV0aF8iLCJleHAiOjE3OTUzMDQzMzMsImlkIjoieDJ5azR0MTdsMWNpeG53IiwicmVmcmVzaGFibGUiOmZhbHNlLCJ0eXBlIjoiYXV0aCJ9.Ae4ofRlpLO_y2Ptx97Fefo0WJk3jrHLAqsuE_RfaFQk"
        let claims = try #require(PocketBaseToken.decode(jwt))
        #expect(claims.id == "x2yk4t17l1cixnw")
        #expect(claims.type == "auth")
        #expect(claims.refreshable == false)
        #expect(claims.expiresAt == Date(timeIntervalSince1970: 1_795_304_333))
        #expect(PocketBaseToken.decode("not-a-jwt") == nil)
    }

    @Test func recordsMapNameAndProfileField() throws {
        let json =
            #"{"id":"abc123def456ghi","email":"a@example.com","verified":true,"name":"Ada","profile":{"bio":"x","n":2},"created":"2026-11-21 23:28:50.273Z","updated":"2026-11-21 23:28:50.273Z"}"#
        let record = try JSONDecoder().decode(PocketBaseRecord.self, from: Data(json.utf8))
        let user = record.user(profileField: "profile")
        #expect(user.id == UserID("abc123def456ghi"))
        #expect(user.emailVerified)
        #expect(user.profile.fields == ["name": "Ada", "bio": "x", "n": .number(2)])
        #expect(abs(user.createdAt.timeIntervalSince1970 - 1_795_303_730.273) < 0.01)
        #expect(record.user(profileField: nil).profile.fields == ["name": "Ada"])
    }

    @Test func recordIDsAreCheckedBeforeTheyReachAPathOrFilter() {
        #expect((try? PocketBaseBackend.safeID(UserID("abc123"))) == "abc123")
        #expect((try? PocketBaseBackend.safeID(UserID("x' || id != '"))) == nil)
        #expect((try? PocketBaseBackend.safeID(UserID("../settings"))) == nil)
    }
}
