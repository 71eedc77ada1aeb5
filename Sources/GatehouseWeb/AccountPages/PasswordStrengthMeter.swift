import HTTPServer
import PasswordStrength

/// `POST /auth/password-strength {password, email?, name?}`: the strength meter under every new-password
/// field asks the server's own rule, so the meter and the form's refusal never disagree (and no
/// dictionary is shipped to the browser). It reads nothing and writes nothing; the password is neither
/// logged nor kept.
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
            return try .json(answer(question))
        }
    }

    func answer(_ question: Question) -> Answer {
        let known = [question.email, question.name].compactMap { $0 }.filter { !$0.isEmpty }
        let (strength, problem) = env.accounts.passwordRules.judge(question.password, userInputs: known)
        return Answer(
            score: strength?.score ?? 0, label: strength?.label ?? "Too long", acceptable: problem == nil, message: problem)
    }
}
