import Foundation
import HTTPTestClient
import TestScope
import Testing

@testable import MailCatcher

/// The catcher against Python's `smtplib`, a real SMTP client, storing into real SQLite.
@Suite(.stopsWhatItStarts) struct SMTPClientTests {
    static let verifyLink = "https://app.example/auth/verify-link?token=" + String(repeating: "a1b2", count: 25)

    @Test func smtplibMultipartAlternativeWithQuotedPrintableLandsOncePerRecipient() async throws {
        let harness = try await CatcherHarness()
        let script = """
            import smtplib, sys
            from email.message import EmailMessage
            msg = EmailMessage()
            msg['Subject'] = 'Vérifiez votre adresse'
            msg['From'] = 'App <app@example.com>'
            msg['To'] = 'Ada <ada@example.com>, bob@example.com'
            msg.set_content('Bonjour Ada,\\n\\nVotre code de vérification :\\n\\n  482913\\n\\nOu ouvrez ' + sys.argv[2] + '\\n', cte='quoted-printable')
            msg.add_alternative('<p>Code <b>482913</b></p><p><a href="' + sys.argv[2] + '">Vérifier</a></p>\\n', subtype='html', cte='quoted-printable')
            with smtplib.SMTP('127.0.0.1', int(sys.argv[1]), timeout=30) as smtp:
                smtp.login('any-user', 'any-password')
                refused = smtp.send_message(msg, to_addrs=['ada@example.com', 'BOB@example.com'])
                print(len(refused))
            """
        let output = try await PythonScript.run(script, arguments: [String(harness.port), Self.verifyLink])
        #expect(output == "0\n")
        for recipient in ["ada@example.com", "bob@example.com"] {
            let mails = try await harness.mailbox.mails(to: recipient, limit: 10)
            #expect(mails.count == 1, "one mail for \(recipient)")
            guard let mail = mails.first else { continue }
            #expect(mail.subject == "Vérifiez votre adresse")
            #expect(mail.text == "Bonjour Ada,\n\nVotre code de vérification :\n\n  482913\n\nOu ouvrez \(Self.verifyLink)\n")
            #expect(mail.html == "<p>Code <b>482913</b></p><p><a href=\"\(Self.verifyLink)\">Vérifier</a></p>\n")
            #expect(mail.code == "482913")
            #expect(mail.link == Self.verifyLink)
        }
        #expect(try await harness.mailbox.mails(to: "BOB@example.com", limit: 10).first?.recipient == "BOB@example.com")
        await harness.stop()
    }

    @Test func smtplibSeesSizeLimitsAndBadSequencesAsSMTPErrors() async throws {
        let harness = try await CatcherHarness(limits: SMTPLimits(maxMessageBytes: 2048))
        let script = """
            import smtplib, sys
            with smtplib.SMTP('127.0.0.1', int(sys.argv[1]), timeout=30) as smtp:
                code, lines = smtp.ehlo('client.test')
                print(code, b'SIZE 2048' in lines, smtp.has_extn('smtputf8'), smtp.has_extn('8bitmime'))
                print(smtp.docmd('DATA')[0], smtp.docmd('FROB')[0], smtp.docmd('STARTTLS')[0], smtp.noop()[0])
                try:
                    smtp.sendmail('a@example.com', ['b@example.com'], 'Subject: big\\r\\n\\r\\n' + 'x' * 4000)
                except smtplib.SMTPResponseException as error:
                    print(error.smtp_code)
                except smtplib.SMTPSenderRefused as error:
                    print(error.smtp_code)
                print(smtp.rset()[0])
            """
        let output = try await PythonScript.run(script, arguments: [String(harness.port)])
        #expect(output == "250 True True True\n503 500 502 250\n552\n250\n")
        #expect(try await harness.mailbox.mails(to: nil, limit: 10).isEmpty)
        await harness.stop()
    }

    @Test func idleClientsGet421AndAreDisconnected() async throws {
        let harness = try await CatcherHarness(idleTimeout: .seconds(1))
        let script = """
            import socket, sys
            with socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=30) as s:
                data = b''
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                print(data.decode().replace('\\r\\n', '|'))
            """
        let output = try await PythonScript.run(script, arguments: [String(harness.port)])
        // The greeting comes first unless a loaded machine delays it past the timeout; the 421 and the close always come.
        #expect(output.hasSuffix("421 gatehouse.local Idle timeout, closing connection|\n"))
        await harness.stop()
    }
}
