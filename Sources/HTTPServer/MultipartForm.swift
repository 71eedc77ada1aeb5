import Foundation

/// A parsed `multipart/form-data` body (RFC 7578): text fields plus uploaded files.
public struct MultipartForm: Sendable {
    /// Parts without a filename, decoded as UTF-8 text.
    public private(set) var fields = Parameters()
    /// Parts with a filename, kept as bytes.
    public private(set) var files: [FormFile] = []

    /// Splits `body` on `boundary`; framing errors and non-UTF-8 text fields throw.
    init(parsing body: [UInt8], boundary: String) throws(RequestError) {
        let delimiter = Array("\r\n--\(boundary)".utf8)
        // A leading CRLF lets the first boundary match the same delimiter as the others.
        let data = [UInt8]("\r\n".utf8) + body
        guard var cursor = Self.find(delimiter, in: data, from: 0) else { throw .malformedMultipart }
        cursor += delimiter.count
        while true {
            if data[cursor...].starts(with: "--".utf8) { return }
            guard let lineEnd = Self.find(Array("\r\n".utf8), in: data, from: cursor),
                data[cursor..<lineEnd].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }),
                let next = Self.find(delimiter, in: data, from: lineEnd + 2)
            else {
                throw .malformedMultipart
            }
            try addPart(data[(lineEnd + 2)..<next])
            cursor = next + delimiter.count
        }
    }

    private mutating func addPart(_ part: ArraySlice<UInt8>) throws(RequestError) {
        let separator = Array("\r\n\r\n".utf8)
        let headerBytes: ArraySlice<UInt8>
        let content: ArraySlice<UInt8>
        if part.starts(with: "\r\n".utf8) {
            headerBytes = []
            content = part.dropFirst(2)
        } else if let end = Self.find(separator, in: part, from: part.startIndex) {
            headerBytes = part[..<end]
            content = part[(end + separator.count)...]
        } else {
            throw .malformedMultipart
        }
        guard let headerText = UTF8Text.string(headerBytes) else { throw .malformedEncoding }
        var disposition: String?
        var contentType: String?
        for line in headerText.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { throw .malformedMultipart }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-disposition" { disposition = value }
            if name == "content-type" { contentType = value }
        }
        guard let disposition,
            disposition.lowercased().hasPrefix("form-data"),
            let name = HeaderValue.parameter("name", in: disposition)
        else {
            throw .malformedMultipart
        }
        if let filename = HeaderValue.parameter("filename", in: disposition) {
            files.append(
                FormFile(
                    fieldName: name,
                    filename: filename,
                    contentType: contentType ?? "application/octet-stream",
                    bytes: Array(content)
                ))
        } else {
            guard let text = UTF8Text.string(content) else { throw .malformedEncoding }
            fields.append(name, text)
        }
    }

    /// First index of `needle` in `haystack` at or after `start`.
    private static func find<C: RandomAccessCollection<UInt8>>(
        _ needle: [UInt8], in haystack: C, from start: C.Index
    ) -> C.Index? where C.Index == Int {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.endIndex - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
