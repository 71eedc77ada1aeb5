import Accounts
import AuthCore
import Foundation
import HTTPServer

/// Mailpit's JSON for the dev mailbox's messages (what `mailpit-api-client`'s models decode).
/// Gatehouse keeps no sender, so `From` is null, as Mailpit writes a message without one.
enum MailpitShapes {
    /// A list or search answer: `{total, unread, count, messages_count, start, tags, messages}`.
    static func messages(total: Int, start: Int, _ messages: [MailMessage]) -> JSONValue {
        .object([
            "total": count(total), "unread": count(0), "count": count(messages.count), "messages_count": count(total),
            "start": count(start), "tags": .array([]), "messages": .array(messages.map(summary))
        ])
    }

    /// A message in a list: its headers, size and first 250 characters.
    static func summary(_ message: MailMessage) -> JSONValue {
        .object(
            headers(message).merging([
                "Created": .string(Timestamp.iso8601(message.createdAt)), "Attachments": count(0),
                "Snippet": .string(String(message.text.prefix(250)))
            ]) { $1 })
    }

    /// One message whole (`message/{ID}`).
    static func message(_ message: MailMessage) -> JSONValue {
        .object(
            headers(message).merging([
                "Date": .string(Timestamp.iso8601(message.createdAt)), "ReturnPath": "", "Text": .string(message.text),
                "HTML": .string(message.html), "Inline": .array([]), "Attachments": .array([])
            ]) { $1 })
    }

    private static func headers(_ message: MailMessage) -> [String: JSONValue] {
        [
            "ID": .string(String(message.id)), "MessageID": .string("gatehouse-\(message.id)@localhost"), "Read": .bool(false),
            "From": .null, "To": .array([.object(["Name": "", "Address": .string(message.recipient)])]), "Cc": .array([]),
            "Bcc": .array([]), "ReplyTo": .array([]), "Subject": .string(message.subject), "Tags": .array([]),
            "Size": count(message.text.utf8.count + message.html.utf8.count)
        ]
    }

    private static func count(_ value: Int) -> JSONValue { .number(Double(value)) }
}
