/// How long an address must wait before the next mail of a kind (the per-address budgets
/// `MailRequests` takes), for pages that show a countdown: 0 when it may ask now.
public struct MailCooldown: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    public func verificationMail(to email: String) async -> Int {
        await env.budgets.wait(.verificationMailsTo(email))
    }

    public func signInCode(to email: String) async -> Int {
        await env.budgets.wait(.signInMailsTo(email, .code))
    }
}
