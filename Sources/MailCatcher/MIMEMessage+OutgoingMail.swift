import ServerSeam

extension MIMEMessage {
    /// One mailbox entry per envelope recipient (so `?to=` finds each), code and link pulled out.
    /// A mail with only HTML gets a plain-text rendering of it as its text.
    public func outgoingMails(recipients: [String]) -> [OutgoingMail] {
        let html = html ?? ""
        let text = text ?? (html.isEmpty ? "" : HTMLText.plain(html))
        let code = MailExtraction.code(in: text) ?? (html.isEmpty ? nil : MailExtraction.code(in: HTMLText.plain(html)))
        let link = MailExtraction.link(text: text, html: html)
        return recipients.map { recipient in
            OutgoingMail(to: recipient, subject: subject, text: text, html: html, code: code, link: link)
        }
    }
}
