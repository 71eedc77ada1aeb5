import Foundation
import HeaderParameters

/// One MIME entity before decoding: unfolded headers and the body's lines (line ends removed).
struct MIMEPart: Sendable {
    var headers: [(name: String, value: String)]
    var body: [ArraySlice<UInt8>]

    /// Splits `lines` at the first empty line; header lines starting with space or tab continue the
    /// previous one (RFC 5322 §2.2.3 unfolding).
    init(lines: ArraySlice<ArraySlice<UInt8>>) {
        var headers: [(name: String, value: String)] = []
        var index = lines.startIndex
        while index < lines.endIndex, !lines[index].isEmpty {
            let line = Charset.headerText(lines[index])
            if let first = line.first, first == " " || first == "\t" {
                if !headers.isEmpty { headers[headers.count - 1].value += line }
            } else if let colon = line.firstIndex(of: ":") {
                headers.append(
                    (
                        String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                        String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                    ))
            }
            index += 1
        }
        self.headers = headers
        body = index < lines.endIndex ? Array(lines[(index + 1)...]) : []
    }

    /// The first header called `name` (any letter case), untouched.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// `Content-Type`, defaulting to `text/plain; charset=us-ascii` (RFC 2045 §5.2).
    var contentType: HeaderParameters {
        HeaderParameters(header("Content-Type") ?? "text/plain; charset=us-ascii")
    }

    var isAttachment: Bool {
        header("Content-Disposition").map { HeaderParameters($0).value == "attachment" } ?? false
    }

    /// The body after undoing its `Content-Transfer-Encoding`, as bytes.
    var decodedBody: [UInt8] {
        switch header("Content-Transfer-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "quoted-printable": TransferEncoding.quotedPrintable(body)
        case "base64": TransferEncoding.base64(body.joined())
        default: Array(body.joined(separator: [10]))
        }
    }

    /// Splits raw bytes into lines on LF, dropping a CR before it.
    static func lines(_ bytes: some Collection<UInt8>) -> [ArraySlice<UInt8>] {
        let array = Array(bytes)
        var lines = array.split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}
