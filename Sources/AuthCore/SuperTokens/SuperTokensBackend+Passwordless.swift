import Foundation

/// Sign-in by a mailed code over the passwordless recipe: `signinup/code` mails it and names the
/// device (`deviceId`, `preAuthSessionId`), `signinup/code/consume` spends it. The recipe signs
/// up a missing account on the right code; where no sign-up is wanted, an unknown address
/// (`passwordless/email/exists`) gets an id that never signs in, and no mail.
extension SuperTokensBackend {
    /// Joins the device's two ids into one otp id (neither holds a space).
    private static let idSeparator: Character = " "

    public func requestEmailOTP(email: String, allowSignUp: Bool) async throws -> String {
        if !allowSignUp {
            let exists = try await fdi.call(
                "GET", "passwordless/email/exists", rid: "passwordless", query: [URLQueryItem(name: "email", value: email)]
            ).ok()
            guard exists.body["exists"] == .bool(true) else {
                return [UUID().uuidString, UUID().uuidString].joined(separator: String(Self.idSeparator))
            }
        }
        let reply = try await fdi.call("POST", "signinup/code", rid: "passwordless", body: ["email": .string(email)]).ok()
        guard let device = reply.body["deviceId"]?.stringValue, let preAuth = reply.body["preAuthSessionId"]?.stringValue
        else { throw SuperTokensUserBody.badResponse("signinup/code answered without the device's ids") }
        return device + String(Self.idSeparator) + preAuth
    }

    /// `signinup/code/consume {deviceId, preAuthSessionId, userInputCode}`: a wrong code or an ended
    /// flow is `.invalidCode`, an expired one `.codeExpired`.
    public func signIn(otpID: String, code: String) async throws -> SignInResult {
        let ids = otpID.split(separator: Self.idSeparator, omittingEmptySubsequences: false)
        guard ids.count == 2, !ids[0].isEmpty, !ids[1].isEmpty else { throw AuthError.invalidCode }
        return try signedIn(
            try await fdi.call(
                "POST", "signinup/code/consume", rid: "passwordless",
                body: [
                    "deviceId": .string(String(ids[0])), "preAuthSessionId": .string(String(ids[1])),
                    "userInputCode": .string(code)
                ]))
    }
}
