import Accounts
import Foundation
import HTTPServer
import ServerSeam

/// `GET /_/mailbox/events?to=&after=ID`: the mailbox page's live feed, as server-sent events on the
/// server's `ResponseStream` (the machinery PocketBase realtime uses; the server bounds how many
/// streams an address holds). It looks for new mail every `interval` — a cheap `max(id)` read, so
/// mail saved by any process shows — and sends each new one (`event: mail`, the page's fields as
/// JSON), oldest first; `event: cleared` when the mailbox was emptied meanwhile. Same access rule
/// as the page.
struct MailboxLive: Sendable {
    let env: PageEnvironment
    var interval: Duration = .milliseconds(400)
    /// The live feeds' own stream places: open mailbox pages never take realtime's.
    static let streamPool = "mailbox"

    /// One mail as the page shows it.
    struct Event: Encodable {
        var id: Int64
        var to: String
        var subject: String
        var text: String
        var code: String
        var link: String
        var createdAt: String
    }

    func register(on router: inout Router) {
        router.on(.get, "/_/mailbox/events") { request, _ in
            if !env.configuration.mailboxIsOpen, await env.console.fromCookie(request) == nil {
                return APIError.response(status: 401, code: "UNAUTHORIZED", message: "Sign in to the console first.")
            }
            let to = try request.query.single("to")?.trimmingCharacters(in: .whitespaces)
            let afterText = try request.query.single("after") ?? "0"
            guard let start = Int64(afterText), start >= 0 else {
                return APIError.response(status: 400, code: "INVALID_AFTER", message: "after must be a message id.")
            }
            let stream = ResponseStream(pool: Self.streamPool, keepAlive: .seconds(15))
            let watch = Task { await follow(stream, to: to.flatMap { $0.isEmpty ? nil : $0 }, after: start) }
            stream.onTermination { watch.cancel() }
            return .stream(
                stream, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"])
        }
    }

    /// Sends what arrives after `after` until the client leaves or the server stops.
    private func follow(_ stream: ResponseStream, to: String?, after: Int64) async {
        var last = after
        while stream.isOpen, !stream.clientLeft, !Task.isCancelled {
            do {
                let newest = try await env.mailbox.newestID()
                if newest < last {
                    // Emptied (ids start again): the page drops what it shows and reads from the start.
                    stream.send(Array("event: cleared\ndata: {}\n\n".utf8))
                    last = 0
                }
                if newest > last {
                    let mails = try await env.mailbox.mails(to: to, after: last, limit: MailboxPages.defaultLimit)
                    for mail in mails.reversed() { stream.send(try Self.event(mail)) }
                    last = max(newest, mails.first?.id ?? newest)
                }
            } catch {
                env.logger.warning("mailbox events stopped", metadata: ["error": "\(error)"])
                stream.finish()
                return
            }
            try? await Task.sleep(for: interval)
        }
    }

    static func event(_ mail: MailMessage) throws -> [UInt8] {
        let event = Event(
            id: mail.id, to: mail.recipient, subject: mail.subject, text: mail.text, code: mail.code ?? "",
            link: mail.link ?? "", createdAt: DisplayDate.dateTime(mail.createdAt))
        let json = try JSONEncoder().encode(event)
        return Array("event: mail\nid: \(mail.id)\ndata: ".utf8) + Array(json) + Array("\n\n".utf8)
    }
}
