import Accounts
import Foundation
import HTTPServer

/// `GET /_/api/test/codes?email=` — the latest code and link of each kind mailed to an address
/// (`TestCodes`): the very ones the mails carry, without reading the mail.
struct TestCodesRoutes: Sendable {
    let api: TestControlsAPI

    struct Latest: Encodable {
        var kind: String
        var code: String?
        var link: String?
        var mailId: String
        var sentAt: Date
    }

    struct Answer: Encodable {
        var email: String
        var items: [Latest]
    }

    func register(on router: inout Router) {
        api.on(&router, .get, "/codes") { request, _, caller in
            let email = try request.query.single("email") ?? ""
            let latest = try await TestCodes(env: api.env.accounts, mailbox: api.env.mailbox, caller: caller)
                .latest(email: email, request: request)
            return try .json(
                Answer(
                    email: email,
                    items: latest.map {
                        Latest(kind: $0.kind.rawValue, code: $0.code, link: $0.link, mailId: $0.mailID, sentAt: $0.sentAt)
                    }))
        }
    }
}
