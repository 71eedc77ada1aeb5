import Foundation
import HTTPTestClient
import Logging
import MailCatcher
import Secrets
import Store
import TestScope
import Testing

/// Mail a real backend sends over SMTP shows up in the dev mailbox API of the running server.
@Suite(.stopsWhatItStarts) struct SMTPMailboxTests {
    @Test func mailCaughtOverSMTPAppearsInTheMailboxAPI() async throws {
        let gatehouse = try await TestGatehouse()
        var logger = Logger(label: "mail-catcher-test")
        logger.logLevel = .warning
        // A second handle on the server's SQLite file, as `gatehouse serve --smtp` wires it.
        let database = try AppDatabase(path: gatehouse.databasePath)
        let mailbox = try MailboxMailer(database: database, keyedHash: KeyedHash(key: database.secretKey(named: "keyed-hash")))
        let catcher = MailCatcher(host: "127.0.0.1", port: 0, mailer: mailbox, logger: logger)
        try await catcher.start()

        let script = """
            import smtplib, sys
            from email.message import EmailMessage
            msg = EmailMessage()
            msg['Subject'] = 'Reset your password'
            msg['From'] = 'backend@example.com'
            msg['To'] = 'carol@example.com'
            msg.set_content('Use code 7391024 or open https://backend.example/_/#/auth/confirm-password-reset/tok123')
            with smtplib.SMTP('127.0.0.1', int(sys.argv[1]), timeout=30) as smtp:
                smtp.send_message(msg)
            """
        _ = try await PythonScript.run(script, arguments: [String(catcher.port)])
        let mails = try await gatehouse.mails(to: "Carol@Example.com")
        #expect(mails.count == 1)
        #expect(mails.first?["subject"] as? String == "Reset your password")
        #expect(mails.first?["code"] as? String == "7391024")
        #expect(mails.first?["link"] as? String == "https://backend.example/_/#/auth/confirm-password-reset/tok123")
        await catcher.shutdown()
        await gatehouse.stop()
    }
}
