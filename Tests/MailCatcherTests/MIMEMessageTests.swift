import Testing

@testable import MailCatcher

private func message(_ lines: [String]) -> MIMEMessage {
    MIMEMessage(parsing: Array(lines.joined(separator: "\r\n").utf8))
}

@Suite struct MIMEMessageTests {
    @Test func plainSevenBitMessage() {
        let parsed = message(["Subject: Hello", "From: a@example.com", "", "Line one", "Line two", ""])
        #expect(parsed == MIMEMessage(subject: "Hello", text: "Line one\nLine two", html: nil))
    }

    @Test func quotedPrintableSoftLineBreaksAndEscapes() {
        let parsed = message([
            "Subject: QP", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: quoted-printable", "",
            "Your code is 123=", "456. Caf=C3=A9 =3D ok   ", "https://example.com/verify?token=3Dabc&x=3D=", "1", ""
        ])
        #expect(parsed.text == "Your code is 123456. Café = ok\nhttps://example.com/verify?token=abc&x=1")
    }

    @Test func base64BodyInLatin1() {
        // "Grüße" in ISO-8859-1, base64-encoded and split across lines.
        let parsed = message([
            "Content-Type: text/plain; charset=\"ISO-8859-1\"", "Content-Transfer-Encoding: base64", "", "R3L8", "32U="
        ])
        #expect(parsed.text == "Grüße")
    }

    @Test func multipartAlternativeNestedInMixedWithAnAttachment() {
        let parsed = message([
            "Subject: Both", "MIME-Version: 1.0", "Content-Type: multipart/mixed; boundary=\"outer\"", "",
            "preamble", "--outer",
            "Content-Type: multipart/alternative; boundary=inner", "",
            "--inner", "Content-Type: text/plain; charset=utf-8", "", "plain body", "--inner",
            "Content-Type: text/html; charset=utf-8", "Content-Transfer-Encoding: base64", "",
            "PHA+aHRtbCBib2R5PC9wPg==", "--inner--", "",
            "--outer  ", "Content-Type: text/plain", "Content-Disposition: attachment; filename=a.txt", "",
            "attachment text", "--outer--", "epilogue"
        ])
        #expect(parsed == MIMEMessage(subject: "Both", text: "plain body", html: "<p>html body</p>"))
    }

    @Test func encodedWordSubjectsInBAndQ() {
        #expect(message(["Subject: =?UTF-8?B?VmVyaWZ5IHlvdXIgZW1haWwg4pyT?=", "", ""]).subject == "Verify your email ✓")
        #expect(
            message(["Subject: =?utf-8?Q?Caf=C3=A9_time?= =?iso-8859-1?q?_gr=FC=DF?= end", "", ""]).subject
                == "Café time grüß end")
        #expect(message(["Subject: Folded", "  across lines", "", ""]).subject == "Folded  across lines")
        #expect(message(["Subject: not =?encoded", "", ""]).subject == "not =?encoded")
    }

    @Test func outgoingMailsGetOneEntryPerRecipientWithCodeAndLink() {
        let parsed = MIMEMessage(
            subject: "OTP", text: nil,
            html: "<p>Your one-time password is: <strong>48213977</strong></p>"
                + "<a href=\"https://app.example/_/#/auth/confirm-verification/abc&amp;x=1\">Verify</a>")
        let mails = parsed.outgoingMails(recipients: ["a@example.com", "b@example.com"])
        #expect(mails.map(\.to) == ["a@example.com", "b@example.com"])
        #expect(mails[0].text == "Your one-time password is: 48213977\nVerify")
        #expect(mails[0].code == "48213977")
        #expect(mails[0].link == "https://app.example/_/#/auth/confirm-verification/abc&x=1")
    }
}

@Suite struct MailExtractionTests {
    @Test func prefersACodeAloneOnItsLine() {
        #expect(MailExtraction.code(in: "Order 1234567 shipped.\nYour code:\n\n  482913\n") == "482913")
    }

    @Test func thenACodeAfterTheWordCode() {
        #expect(MailExtraction.code(in: "Ticket 5551234, your verification code is 482913.") == "482913")
        #expect(MailExtraction.code(in: "code:12345678") == "12345678")
    }

    @Test func ignoresNumbersInURLsWordsDatesAndLongNumbers() {
        #expect(MailExtraction.code(in: "See https://x.example/123456 and id abc123456 and 1234567890") == nil)
        #expect(MailExtraction.code(in: "Amount 123456.78 on 2026-123456") == nil)
        #expect(MailExtraction.code(in: "12345 is too short") == nil)
        #expect(MailExtraction.code(in: "Reference 7654321 only") == "7654321")
    }

    @Test func picksTheVerificationLinkOverOthers() {
        let text = "Visit https://example.com. Then confirm at https://example.com/auth/verify?token=abc)."
        #expect(MailExtraction.link(text: text, html: "") == "https://example.com/auth/verify?token=abc")
        #expect(MailExtraction.link(text: "Home: https://example.com/home", html: "") == "https://example.com/home")
        #expect(
            MailExtraction.link(text: "Hello", html: "<a href='https://x.example/reset-password/t1'>go</a>")
                == "https://x.example/reset-password/t1")
        #expect(MailExtraction.link(text: "no links", html: "<a href=\"mailto:a@b.c\">") == nil)
    }
}
