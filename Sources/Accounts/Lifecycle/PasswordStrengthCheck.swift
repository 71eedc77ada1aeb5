import HTTPServer
import PasswordStrength

/// The strength meter's question (`POST /auth/password-strength`): the one password rule judges
/// what a person is typing, so the meter and the form's refusal never disagree. Anyone may ask and
/// each question runs the estimator, so each takes one of the source's `strengthChecks`; nothing
/// is stored or logged about the password.
public struct PasswordStrengthCheck: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    public enum Outcome: Sendable {
        /// zxcvbn's estimate (nil past the length limit) and why the rule refuses it, if it does.
        case judged(PasswordStrength?, problem: String?)
        case held(Budgets.Refusal)
    }

    /// Judges `password`, counting the account's own address and name (`userInputs`) as words an
    /// attacker tries first.
    public func judge(_ password: String, userInputs: [String], request: Request) async -> Outcome {
        if let refusal = await env.budgets.take(.strengthChecks(ip: request.remoteAddress)) { return .held(refusal) }
        let (strength, problem) = env.passwordRules.judge(password, userInputs: userInputs)
        return .judged(strength, problem: problem)
    }
}
