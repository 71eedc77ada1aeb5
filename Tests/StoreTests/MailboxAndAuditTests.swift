import AuthCore
import Foundation
import GRDB
import Secrets
import ServerSeam
import Testing

@testable import Store

/// The dev mailbox and the audit log.
@Suite struct MailboxAndAuditTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws { test = try TestDatabase() }

    @Test func mailboxFiltersByNormalizedRecipientNewestFirst() async throws {
        let mailer = try MailboxMailer(
            database: test.database, keyedHash: KeyedHash(key: SecureRandom.bytes(KeyedHash.keyLength)), clock: { [now] in now })
        try await mailer.send(OutgoingMail(to: "Ann@Example.com", subject: "1", text: "t", html: "h", code: "123456"))
        try await mailer.send(OutgoingMail(to: "bob@example.com", subject: "2", text: "t", html: "h"))
        try await mailer.send(OutgoingMail(to: "ann@example.com", subject: "3", text: "t", html: "h", link: "http://x/l"))
        let annMails = try await mailer.mails(to: " ANN@example.com", limit: 10)
        #expect(annMails.map(\.subject) == ["3", "1"])
        #expect(annMails.last?.code == "123456" && annMails.first?.link == "http://x/l")
        #expect(annMails.first?.recipient == "ann@example.com" && annMails.first?.createdAt == now)
        #expect(try await mailer.mails(to: nil, limit: 2).map(\.subject) == ["3", "2"])
    }

    /// What the live page reads: mail newer than the last it showed, the newest id, and a clear
    /// that empties the mailbox (ids then start again, which the live feed takes as "cleared").
    @Test func mailAfterAnIdAndClearing() async throws {
        let mailer = try MailboxMailer(
            database: test.database, keyedHash: KeyedHash(key: SecureRandom.bytes(KeyedHash.keyLength)), clock: { [now] in now })
        #expect(try await mailer.newestID() == 0)
        for (to, subject) in [("ann@example.com", "1"), ("bob@example.com", "2"), ("ann@example.com", "3")] {
            try await mailer.send(OutgoingMail(to: to, subject: subject, text: "t", html: "h"))
        }
        let first = try #require(try await mailer.mails(to: nil, limit: 10).last)
        #expect(try await mailer.mails(to: nil, after: first.id, limit: 10).map(\.subject) == ["3", "2"])
        #expect(try await mailer.mails(to: "ANN@example.com", after: first.id, limit: 10).map(\.subject) == ["3"])
        let newest = try await mailer.newestID()
        #expect(try await mailer.deleteAll() == 3)
        #expect(try await mailer.mails(to: nil, limit: 10).isEmpty)
        try await mailer.send(OutgoingMail(to: "ann@example.com", subject: "4", text: "t", html: "h"))
        #expect(try await mailer.newestID() < newest)
    }

    /// The content is sealed: the row holds no code, and a mailbox under another key file opens
    /// none of it (those mails are left out rather than failing the mailbox).
    @Test func mailsOpenOnlyUnderTheirKey() async throws {
        func mailbox() throws -> MailboxMailer {
            try MailboxMailer(database: test.database, keyedHash: KeyedHash(key: SecureRandom.bytes(KeyedHash.keyLength)))
        }
        let (mailer, stranger) = (try mailbox(), try mailbox())
        try await mailer.send(OutgoingMail(to: "ann@example.com", subject: "s", text: "482913", html: "h", code: "482913"))
        let sealed = try await test.database.pool.read { db in
            try Data.fetchOne(db, sql: "SELECT content_sealed FROM mails")
        }
        #expect(sealed.map { $0.range(of: Data("482913".utf8)) == nil } == true)
        #expect(try await mailer.mails(to: nil, limit: 10).map(\.code) == ["482913"])
        #expect(try await stranger.mails(to: nil, limit: 10).isEmpty)
    }

    @Test func auditEventsKeepTheirJSONData() async throws {
        try await test.database.recordAudit(
            NewAuditEvent(
                type: "user.signed_in", actor: "u1", subject: "u1",
                ip: "127.0.0.1", data: ["method": .string("password")], at: now))
        try await test.database.recordAudit(NewAuditEvent(type: "session.impersonated", actor: "admin", subject: "u2", at: now))
        let forU1 = try await test.database.auditEvents(subject: "u1", limit: 10)
        #expect(forU1.count == 1)
        #expect(forU1.first?.data == ["method": .string("password")])
        #expect(forU1.first?.createdAt == now)
        #expect(
            try await test.database.auditEvents(subject: nil, limit: 10).map(\.type) == ["session.impersonated", "user.signed_in"]
        )
    }
}
