import AuthCore
import Foundation
import ServerSeam

/// The messages that carry a verification code or link, as plain text and simple HTML.
enum VerificationMail {
    static func code(_ code: String, to recipient: String, lifetime: TimeInterval) -> OutgoingMail {
        let validity = describe(lifetime)
        let text = """
            Your \(MailBrand.current.name) verification code is \(code).

            It works once, for \(validity). If you didn't create this account, ignore this message.
            """
        let html = """
            <p>Your \(escape(MailBrand.current.name)) verification code is</p>
            <p style="font-size:2em;letter-spacing:0.2em"><strong>\(escape(code))</strong></p>
            <p>It works once, for \(validity). If you didn't create this account, ignore this message.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Your \(MailBrand.current.name) verification code", text: text, html: html, code: code,
            kind: .verification)
    }

    /// The code, and the link that does the same, for apps that confirm with a link's token.
    static func code(_ code: String, link: String, to recipient: String, lifetime: TimeInterval) -> OutgoingMail {
        let validity = describe(lifetime)
        let text = """
            Your \(MailBrand.current.name) verification code is \(code).

            Or confirm your email address by opening this link:

            \(link)

            Either works once, for \(validity). If you didn't create this account, ignore this message.
            """
        let html = """
            <p>Your \(escape(MailBrand.current.name)) verification code is</p>
            <p style="font-size:2em;letter-spacing:0.2em"><strong>\(escape(code))</strong></p>
            <p>Or <a href="\(escape(link))">verify my email address</a> by link.</p>
            <p>Either works once, for \(validity). If you didn't create this account, ignore this message.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Your \(MailBrand.current.name) verification code", text: text, html: html, code: code,
            link: link, kind: .verification)
    }

    static func link(_ link: String, to recipient: String, lifetime: TimeInterval) -> OutgoingMail {
        let validity = describe(lifetime)
        let text = """
            Confirm your email address for \(MailBrand.current.name) by opening this link:

            \(link)

            It works once, for \(validity). If you didn't create this account, ignore this message.
            """
        let html = """
            <p>Confirm your email address for \(escape(MailBrand.current.name)):</p>
            <p><a href="\(escape(link))">Verify my email address</a></p>
            <p>It works once, for \(validity). If you didn't create this account, ignore this message.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Verify your \(MailBrand.current.name) email address", text: text, html: html, link: link,
            kind: .verification)
    }

    /// `mail` with the sign-up's "this wasn't me" link added.
    static func offeringRemoval(_ mail: OutgoingMail, link: String) -> OutgoingMail {
        var mail = mail
        mail.text += "\n\nNot you? Remove the account someone made with your address: \(link)"
        mail.html +=
            "<p>Not you? <a href=\"\(escape(link))\">Remove the account</a> someone made with your address.</p>"
        return mail
    }

    /// To the owner of an address someone tried to sign up with again. The sign-up page answers
    /// as for a new address (so it reveals no account); this mail tells the one person who should
    /// know, and how to get in if it was them.
    static func signUpAttempt(to recipient: String, signInURL: String) -> OutgoingMail {
        let text = """
            Someone tried to create a \(MailBrand.current.name) account with this email address, which already has one.

            If it was you, sign in instead: \(signInURL)
            If it was not, you can ignore this message: nothing about your account changed.
            """
        let html = """
            <p>Someone tried to create a \(escape(MailBrand.current.name)) account with this email address, \
            which already has one.</p>
            <p>If it was you, <a href="\(escape(signInURL))">sign in instead</a>.</p>
            <p>If it was not, you can ignore this message: nothing about your account changed.</p>
            """
        return OutgoingMail(
            to: recipient, subject: "Someone tried to sign up with your \(MailBrand.current.name) address", text: text, html: html
        )
    }

    /// "10 minutes", "24 hours", "1 hour".
    static func describe(_ lifetime: TimeInterval) -> String {
        let minutes = Int(lifetime / 60)
        if minutes >= 60 && minutes % 60 == 0 {
            let hours = minutes / 60
            return hours == 1 ? "1 hour" : "\(hours) hours"
        }
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
