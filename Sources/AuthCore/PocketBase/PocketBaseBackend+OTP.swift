import Foundation

/// PocketBase's one-time codes (`.emailOTP`): `request-otp` mails a code and answers an `otpId`
/// (for unknown addresses too, mailing nothing), `auth-with-otp` trades id and code for a token
/// and marks the address verified. `prepareCollection` turns OTP on for the collection.
/// PocketBase creates no account from a code, so `allowSignUp` has no effect here; it has no magic
/// links (`.magicLink` stays unsupported).
extension PocketBaseBackend {
    /// How long PocketBase's codes work once `prepareCollection` has set them up (its own default is 3 minutes).
    static let otpDuration = 600

    public func requestEmailOTP(email: String, allowSignUp: Bool) async throws -> String {
        struct Reply: Decodable { var otpId: String }
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(email) else {
            throw AuthError.validation([FieldError(field: "email", message: "Enter a valid email address.")])
        }
        let reply = try await http.json(
            Reply.self, "POST", "\(collectionPath)/request-otp", body: ["email": .string(email)])
        return reply.otpId
    }

    public func signIn(otpID: String, code: String) async throws -> SignInResult {
        do {
            let reply = try await http.json(
                PocketBaseAuthReply.self, "POST", "\(collectionPath)/auth-with-otp",
                body: ["otpId": .string(otpID), "password": .string(code.filter { !$0.isWhitespace })], call: .verify)
            return .signedIn(session(from: reply))
        } catch let owed as SecondStepOwed {
            return .secondStep(owed.challenge)
        }
    }

    /// The collection's `otp` options with OTP on, 6 digits and `otpDuration`; nil when already so.
    static func otpPatch(_ collection: [String: JSONValue]) -> JSONValue? {
        guard case .object(var otp)? = collection["otp"] else {
            return .object(["enabled": .bool(true), "duration": .number(Double(otpDuration)), "length": .number(6)])
        }
        if otp["enabled"] == .bool(true), otp["length"] == .number(6) { return nil }
        otp["enabled"] = .bool(true)
        otp["length"] = .number(6)
        otp["duration"] = .number(Double(otpDuration))
        return .object(otp)
    }
}
