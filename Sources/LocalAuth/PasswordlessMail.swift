import AuthCore
import Foundation
import ServerSeam

/// The messages that carry a passwordless sign-in code or magic link, as plain text and HTML.
enum PasswordlessMail {
    static func code(_ code: String, to recipient: String, lifetime: TimeInterval) -> OutgoingMail {
        let validity = VerificationMail.describe(lifetime)
        let text = """
            Your \(MailBrand.current.name) sign-in code is \(code).

            It works once, for \(validity). If you did not ask to sign in, ignore this message: \
            nobody can use the code without this mailbox.
            """
        let html = """
            <p>Your \(VerificationMail.escape(MailBrand.current.name)) sign-in code is</p>
            <p style="font-size:2em;letter-spacing:0.2em"><strong>\(VerificationMail.escape(code))</strong></p>
            <p>It works once, for \(validity). If you did not ask to sign in, ignore this message.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Your \(MailBrand.current.name) sign-in code", text: text, html: html, code: code,
            kind: .signInCode)
    }

    static func link(_ link: String, to recipient: String, lifetime: TimeInterval) -> OutgoingMail {
        let validity = VerificationMail.describe(lifetime)
        let text = """
            Sign in to \(MailBrand.current.name) by opening this link:

            \(link)

            It works once, for \(validity), best in the browser where you asked for it. If you did \
            not ask to sign in, ignore this message.
            """
        let html = """
            <p>Sign in to \(VerificationMail.escape(MailBrand.current.name)):</p>
            <p><a href="\(VerificationMail.escape(link))">Sign me in</a></p>
            <p>It works once, for \(validity), best in the browser where you asked for it. If you did not ask to sign in, ignore this message.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Sign in to \(MailBrand.current.name)", text: text, html: html, link: link,
            kind: .magicLink)
    }
}
