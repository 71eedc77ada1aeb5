import AuthCore
import Foundation
import HTTPServer
import MailCatcher
import PocketBaseFilter
import WebAuthn

/// The parsers that read untrusted bytes, each as a function of one input, for libFuzzer
/// (`make fuzz`) and for replaying the committed corpus in `swift test`. A harness only has to
/// return: a crash, a trap or a hang is the finding, and so is a broken invariant, which the
/// harnesses that have one check with `precondition`.
public enum FuzzHarness: String, CaseIterable, Sendable {
    /// The request line's target: path and query splitting, strict percent-decoding.
    case requestTarget = "request-target"
    /// An `application/x-www-form-urlencoded` body.
    case form
    /// `multipart/form-data`: the first line is the Content-Type header (boundary parameter
    /// included), the rest is the body.
    case multipart
    /// `Cookie` header lines, one per input line.
    case cookie
    /// A `Host` header against the DNS-rebinding allow-list.
    case host
    /// A mail as the SMTP catcher receives it: headers, MIME parts, transfer encodings, charsets.
    case mime
    /// JSON text through the hand-written reader (`JSONValue(parsing:)`); what it accepts must read
    /// back the same from Foundation's encoding of it.
    case json
    /// A PocketBase `filter=` (and the same text as a `sort=`) compiled to SQL over declared fields of
    /// every kind; what compiles must bind every value it read and keep the SQL well-formed.
    case pocketBaseFilter = "pocketbase-filter"
    /// CBOR as WebAuthn's parser reads it; what it accepts must read the same again as a prefix.
    case cbor
    /// A WebAuthn attestation object (CBOR map, authenticator data, COSE key, statement checked
    /// over a fixed client-data hash) and the same bytes as assertion authenticator data.
    case webAuthnAttestation = "webauthn-attestation"

    public func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .requestTarget:
            _ = try? Request(method: .get, target: text)
        case .form:
            var headers = HTTPHeaders()
            headers.add("Content-Type", "application/x-www-form-urlencoded")
            _ = try? Request(method: .post, target: "/", headers: headers, body: bytes).form()
        case .multipart:
            let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            var headers = HTTPHeaders()
            headers.add("Content-Type", String(decoding: bytes[..<newline], as: UTF8.self))
            let body = Array(bytes[min(newline + 1, bytes.endIndex)...])
            guard let request = try? Request(method: .post, target: "/upload", headers: headers, body: body) else { return }
            _ = try? request.form()
            _ = try? request.multipartForm()
        case .cookie:
            var headers = HTTPHeaders()
            for line in text.split(separator: "\n") { headers.add("Cookie", String(line)) }
            _ = try? Request(method: .get, target: "/", headers: headers).cookies
        case .host:
            _ = HostAllowList(names: ["gatehouse.test"]).check(text.split(separator: "\n").map(String.init))
        case .mime:
            _ = MIMEMessage(parsing: bytes)
        case .json:
            Self.readJSON(text)
        case .pocketBaseFilter:
            Self.compileFilter(text)
        case .cbor:
            Self.readCBOR(bytes)
        case .webAuthnAttestation:
            if let attestation = try? AttestationObject(bytes) {
                _ = try? attestation.verifyStatement(clientDataHash: [UInt8](repeating: 0xA5, count: 32))
            }
            _ = try? AuthenticatorData(bytes)
            _ = try? COSEKey(bytes: bytes)
        }
    }

    private static func readCBOR(_ bytes: [UInt8]) {
        guard let value = try? CBORDecoder.decode(bytes) else { return }
        let again = try? CBORDecoder.decodePrefix(bytes, from: 0)
        precondition(again?.0 == value && again?.1 == bytes.count, "CBOR read differently as a prefix: \(bytes)")
    }

    private static func readJSON(_ text: String) {
        guard let value = JSONValue(parsing: text) else { return }
        guard let encoded = try? JSONEncoder().encode(value) else {
            preconditionFailure("JSONEncoder refused a value the reader produced from \(text.debugDescription)")
        }
        let reread = JSONValue(parsing: String(decoding: encoded, as: UTF8.self))
        precondition(reread == value, "\(text.debugDescription) reads as \(value), its encoding as \(String(describing: reread))")
    }

    /// One field of each kind, and a column whose name needs quoting, as the PocketBase API declares them.
    private static let filterContext = FilterContext(
        fields: [
            FilterField("id"), FilterField("email"), FilterField("name", column: "display name"),
            FilterField("verified", kind: .bool), FilterField("created", kind: .date),
            FilterField("logins", kind: .number), FilterField("profile", kind: .json)
        ],
        requestAuthID: "u1", requestAuth: ["email": .text("a@b.test"), "verified": .bool(true)],
        now: Date(timeIntervalSince1970: 1_700_000_000))

    private static func compileFilter(_ text: String) {
        if let filter = try? PocketBaseFilter.compile(text, context: filterContext) {
            checkSQL(filter.sql, binds: filter.arguments.count, of: text)
        }
        if let sort = try? PocketBaseFilter.compileSort(text, fields: filterContext.fields) {
            checkSQL(sort.sql, binds: 0, of: text)
        }
    }

    /// Every value is a placeholder, parentheses balance, and nothing ends the statement.
    private static func checkSQL(_ sql: String, binds: Int, of text: String) {
        precondition(
            sql.count(where: { $0 == "?" }) == binds, "\(text.debugDescription) compiled to \(sql) with \(binds) arguments")
        var depth = 0
        for character in sql where character == "(" || character == ")" {
            depth += character == "(" ? 1 : -1
            precondition(depth >= 0, "\(text.debugDescription) compiled to unbalanced \(sql)")
        }
        precondition(depth == 0 && !sql.contains(";"), "\(text.debugDescription) compiled to \(sql)")
    }
}
