import Foundation

/// Turns bytes in a declared charset into text: UTF-8 and US-ASCII, ISO-8859-1 (Latin-1) and
/// Windows-1252; anything else is read as UTF-8, replacing what does not decode.
enum Charset {
    static func decode(_ bytes: some Collection<UInt8>, charset: String?) -> String {
        let name = (charset ?? "us-ascii").trimmingCharacters(in: .whitespaces).lowercased()
        switch name {
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso_8859-1", "cp819":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        case "windows-1252", "cp1252":
            return String(bytes: Array(bytes), encoding: .windowsCP1252)
                ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default:
            return String(decoding: Array(bytes), as: UTF8.self)
        }
    }

    /// A raw header line: UTF-8 when it is valid (SMTPUTF8 senders), else Latin-1 byte for byte.
    static func headerText(_ bytes: some Collection<UInt8>) -> String {
        String(validating: Array(bytes), as: UTF8.self)
            ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
