import Accounts
import HTTPServer

/// `POST /auth/password-strength {password, email?, name?}`: the strength meter under every new-password
/// field asks the server's own rule (`PasswordStrengthCheck`, under a per-address budget), so the
/// meter and the form's refusal never disagree (and no dictionary is shipped to the browser). The
/// password is neither logged nor kept.
struct PasswordStrengthMeter {
    let env: PageEnvironment

    struct Question: Decodable {
        var password: String
        var email: String?
        var name: String?
    }

    struct Answer: Encodable {
        /// zxcvbn's 0–4.
        var score: Int
        var label: String
        /// Whether the rule accepts the password.
        var acceptable: Bool
        /// Why not, in the words the form would use; nil when acceptable.
        var message: String?
    }

    func register(on router: inout Router) {
        router.on(.post, "/auth/password-strength") { request, _ in
            guard let question = try? request.decodeJSON(Question.self) else {
                return try .json(["message": "Send {\"password\": …} as JSON."], status: 400)
            }
            let known = [question.email, question.name].compactMap { $0 }.filter { !$0.isEmpty }
            switch await PasswordStrengthCheck(env: env.accounts).judge(question.password, userInputs: known, request: request) {
            case .judged(let strength, let problem):
                return try .json(
                    Answer(
                        score: strength?.score ?? 0, label: strength?.label ?? "Too long", acceptable: problem == nil,
                        message: problem))
            case .held(let refusal):
                return try .json(["message": "Too many questions; try again in \(refusal.retryAfter) s."], status: 429)
                    .retrying(after: refusal.retryAfter)
            }
        }
    }
}
