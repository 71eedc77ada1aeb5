import Foundation

/// Checks that a request head libmicrohttpd has parsed was framed as RFC 9112 requires, which
/// MHD 0.9.75 does not enforce (its strict mode only refuses spaces in the target and a missing
/// `Host`): it takes a bare LF for a line end, folds obs-fold lines into the field, keeps
/// whitespace before a colon in the field name and cuts a value at a NUL. A proxy in front may
/// read any of these differently, which is how requests are smuggled (issue 22, item 13).
///
/// The check reads what MHD leaves behind. MHD parses the head in place in its read buffer: each
/// CR LF becomes two NULs (a bare LF one), each field's colon one NUL, and the name and value
/// pointers it lends out point into that buffer, which starts at the method and is
/// `MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE` bytes long. A strict head is therefore exactly: the
/// request line, NUL NUL, then for each field in order its name, NUL, optional SP/HTAB, its value,
/// NUL NUL, and a final NUL NUL. A bare LF leaves one NUL where two belong, a NUL inside a value
/// leaves the value short of its line end, and an obs-fold line makes MHD move the name elsewhere,
/// so each leaves a field out of place. Nothing outside that buffer is read, and anything
/// unexpected counts as malformed, so a different MHD layout fails closed (every test would show
/// it). One form stays indistinguishable: a NUL right before a bare LF reads like CR LF.
///
/// Names must be tokens and values may hold no control character but HTAB (RFC 9110 §5.1, §5.5),
/// which also refuses whitespace before the colon and a bare CR.
struct StrictHead {
    private let end: UnsafeRawPointer
    /// Where the next field must start; nil once the head is known to be malformed.
    private var cursor: UnsafeRawPointer?

    /// `targetLength` is the request-target's length as MHD handed it to the URI log callback.
    init(method: UnsafePointer<CChar>, version: UnsafePointer<CChar>, targetLength: Int, headSize: Int) {
        let start = UnsafeRawPointer(method)
        end = start + headSize
        // Method SP target SP version: single spaces, as RFC 9112 §3 writes it.
        let requestLine = strlen(method) + 1 + targetLength + 1 + strlen(version)
        cursor = requestLine <= headSize ? Self.lineEnd(at: start + requestLine, before: end) : nil
    }

    /// Checks the next field, in the order MHD received them.
    mutating func field(name: UnsafeRawPointer, nameCount: Int, value: UnsafeRawPointer?, valueCount: Int) {
        guard let expected = cursor, name == expected, let value, nameCount > 0,
            nameCount < end - name, value > name + nameCount, valueCount <= end - value
        else {
            cursor = nil
            return
        }
        let colon = name + nameCount
        let names = UnsafeRawBufferPointer(start: name, count: nameCount)
        let gap = UnsafeRawBufferPointer(start: colon + 1, count: value - (colon + 1))
        let values = UnsafeRawBufferPointer(start: value, count: valueCount)
        guard colon.load(as: UInt8.self) == 0, names.allSatisfy(Self.isTokenByte),
            gap.allSatisfy({ $0 == 0x20 || $0 == 0x09 }), values.allSatisfy(Self.isValueByte)
        else {
            cursor = nil
            return
        }
        cursor = Self.lineEnd(at: value + valueCount, before: end)
    }

    /// Whether the head was strict: every field in place and the blank line ending it exactly.
    var isStrict: Bool {
        guard let cursor else { return false }
        return Self.lineEnd(at: cursor, before: end) == end
    }

    /// Just past the two NULs MHD leaves of a CR LF at `position`, or nil.
    private static func lineEnd(at position: UnsafeRawPointer, before end: UnsafeRawPointer) -> UnsafeRawPointer? {
        guard end - position >= 2, position.load(as: UInt8.self) == 0, (position + 1).load(as: UInt8.self) == 0 else {
            return nil
        }
        return position + 2
    }

    /// tchar (RFC 9110 §5.6.2).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            tokenPunctuation.contains(byte)
        }
    }

    private static let tokenPunctuation = Array("!#$%&'*+-.^_`|~".utf8)

    /// field-vchar, SP or HTAB (RFC 9110 §5.5); obs-text passes, as the RFC allows.
    private static func isValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }
}
