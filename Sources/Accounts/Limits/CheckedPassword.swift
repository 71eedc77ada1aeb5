import AuthCore

/// Why a password re-check did not go through. Callers answer every reason alike (a locked or
/// throttled try reads as a wrong password); the reason is for the audit trail.
public enum PasswordRefusal: String, Error {
    case wrong = "invalid_credentials"
    case locked
    case throttled = "rate_limited"
}

extension Budgets {
    /// Runs `change`, which checks `password` itself (the backend's call that takes it), as one
    /// admitted try of `check` for `email`: a try that is not admitted never reaches the backend.
    /// Returns `change`'s result, or the refusal when the try was not admitted or the password was
    /// wrong (`.invalidCredentials` from `change`). Other errors pass on, the try forgotten; a
    /// result that goes on to a second step counts as the right password, as any result does.
    func withPasswordTry<T: Sendable>(
        _ check: PasswordCheck, email: String, password: String, ip: String, _ change: () async throws -> T
    ) async throws -> Result<T, PasswordRefusal> {
        let attempt = await beginPasswordTry(check, email: email, password: password, ip: ip)
        switch attempt.admission {
        case .open: break
        case .locked: return .failure(.locked)
        case .throttled: return .failure(.throttled)
        }
        do {
            let result = try await change()
            await settle(attempt, .right)
            return .success(result)
        } catch AuthError.invalidCredentials {
            return .failure(.wrong)
        } catch {
            await settle(attempt, .none)
            throw error
        }
    }
}

extension Result {
    /// The failure, or nil for a success.
    var refusal: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
