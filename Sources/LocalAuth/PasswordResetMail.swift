import AuthCore
import Foundation
import ServerSeam

extension VerificationMail {
    /// The reset mail: the link, and in code mode a 6-digit code to type on the "check your mail"
    /// page instead (for a phone that shows the mail while the computer shows the page).
    static func passwordReset(link: String, code: String?, to recipient: String, lifetime: TimeInterval) -> OutgoingMail {
        let validity = describe(lifetime)
        let codeText = code.map { "\n\nOr enter this code on the reset page: \($0)" } ?? ""
        let codeHTML =
            code.map {
                """
                <p>Or enter this code on the reset page:</p>
                <p style="font-size:2em;letter-spacing:0.2em"><strong>\(escape($0))</strong></p>
                """
            } ?? ""
        let text = """
            Someone asked to reset the password of your \(MailBrand.current.name) account. Choose a new password here:

            \(link)\(codeText)

            It works once, for \(validity). If you did not ask, ignore this message: your password stays as it is.
            """
        let html = """
            <p>Someone asked to reset the password of your \(VerificationMail.escape(MailBrand.current.name)) account.</p>
            <p><a href="\(escape(link))">Choose a new password</a></p>
            \(codeHTML)
            <p>It works once, for \(validity). If you did not ask, ignore this message: your password stays as it is.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Reset your \(MailBrand.current.name) password", text: text, html: html, code: code,
            link: link, kind: .passwordReset)
    }
}
