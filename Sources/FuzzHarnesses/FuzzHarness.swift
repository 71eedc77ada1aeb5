import HTTPServer
import MailCatcher

/// The parsers that read untrusted bytes, each as a function of one input, for libFuzzer
/// (`make fuzz`) and for replaying the committed corpus in `swift test`. A harness only has to
/// return: a crash, a trap or a hang is the finding.
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
        }
    }
}
