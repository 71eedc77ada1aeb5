import AuthCore
import Foundation
import ServerSeam

/// The messages of an email change: the confirmation link to the new address, the notice to the
/// old one, and — when the new address already has an account — a note to that address instead
/// of a link.
enum EmailChangeMail {
    static func confirmation(_ link: String, to recipient: String, lifetime: TimeInterval) -> OutgoingMail {
        let validity = VerificationMail.describe(lifetime)
        let text = """
            Someone asked to move a \(MailBrand.current.name) account to this email address. To confirm, open this link \
            and press "Confirm":

            \(link)

            It works once, for \(validity). If you did not ask for this, ignore this message: \
            nothing changes unless the link is confirmed.
            """
        let html = """
            <p>Someone asked to move a \(VerificationMail.escape(MailBrand.current.name)) account to this email address.</p>
            <p><a href="\(VerificationMail.escape(link))">Confirm my new email address</a></p>
            <p>It works once, for \(validity). If you did not ask for this, ignore this message: \
            nothing changes unless the link is confirmed.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Confirm your new \(MailBrand.current.name) email address", text: text, html: html,
            link: link,
            kind: .emailChange)
    }

    /// A session-proven change's code (Descope's `otp/update/email`), to the new address.
    static func code(_ code: String, to recipient: String, lifetime: TimeInterval) -> OutgoingMail {
        let validity = VerificationMail.describe(lifetime)
        let text = """
            Someone signed in to a \(MailBrand.current.name) account asked to move it to this email address. To confirm, \
            enter this code in the app: \(code)

            It works once, for \(validity). If you did not ask for this, ignore this message: nothing \
            changes unless the code is entered.
            """
        let html = """
            <p>Someone signed in to a \(VerificationMail.escape(MailBrand.current.name)) account asked to move it to this \
            email address. To confirm, \
            enter this code in the app:</p>
            <p style="font-size:2em;letter-spacing:0.2em"><strong>\(VerificationMail.escape(code))</strong></p>
            <p>It works once, for \(validity). If you did not ask for this, ignore this message: nothing \
            changes unless the code is entered.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Your \(MailBrand.current.name) email change code", text: text, html: html, code: code,
            kind: .emailChange)
    }

    /// To the current address: the same words whether or not the new address was free, so this
    /// mailbox learns nothing about other accounts.
    static func notice(to recipient: String, newAddress: String) -> OutgoingMail {
        let masked = mask(newAddress)
        let text = """
            Someone asked to change the email address of your \(MailBrand.current.name) account to \(masked).

            The change happens only when it is confirmed from that address. If this wasn't you, \
            change your password now: whoever asked knows it. Until the change is confirmed, you \
            keep signing in with this address.
            """
        let html = """
            <p>Someone asked to change the email address of your \(VerificationMail.escape(MailBrand.current.name)) account to \
            <strong>\(VerificationMail.escape(masked))</strong>.</p>
            <p>The change happens only when it is confirmed from that address. If this wasn't you, \
            change your password now: whoever asked knows it. Until the change is confirmed, you \
            keep signing in with this address.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Your \(MailBrand.current.name) email address is being changed", text: text, html: html)
    }

    /// To an address that already has an account, in place of a confirmation link (the page
    /// answered as if it were free).
    static func addressTaken(to recipient: String) -> OutgoingMail {
        let text = """
            Someone asked to move another \(MailBrand.current.name) account to this email address, which already has \
            an account. Nothing was changed, and your account is as it was.

            If it was you, sign in to the account this address already has, or delete that account \
            first and ask again.
            """
        let html = """
            <p>Someone asked to move another \(VerificationMail.escape(MailBrand.current.name)) account to this email \
            address, which already \
            has an account. Nothing was changed, and your account is as it was.</p>
            <p>If it was you, sign in to the account this address already has, or delete that account \
            first and ask again.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Someone tried to move a \(MailBrand.current.name) account to your address", text: text,
            html: html)
    }

    /// `n…@example.com`: enough for the owner to recognise, not enough to read off the notice.
    static func mask(_ address: String) -> String {
        let trimmed = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let at = trimmed.lastIndex(of: "@"), let first = trimmed.first, trimmed.first != "@" else { return "…" }
        return "\(first)…\(trimmed[at...])"
    }
}
