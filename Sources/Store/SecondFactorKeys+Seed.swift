import Foundation
import TwoFactor

extension SecondFactorKeys {
    /// Turns the holder's authenticator app on with `secret` — a seed file's key, which the test
    /// suite's own authenticator computes codes from — with recovery codes no one is shown. False
    /// when the app was on already.
    public func enableSeeded(_ holder: CredentialHolder, secret: TOTPSecret) async throws -> Bool {
        let now = clock()
        let sealed = try box(holder).seal(secret.base32)
        guard try await database.setPendingTOTPSecret(holder, sealed: sealed, at: now) else { return false }
        return try await database.enableTOTP(
            holder, pendingSealed: sealed, step: 0,
            recoveryCodeHashes: RecoveryCodes.generate().map { recoveryCodeHash($0, holder) }, at: now)
    }
}
