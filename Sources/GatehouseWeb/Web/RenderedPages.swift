import Foundation
import Secrets

/// Pages already rendered, by template and everything their context holds, so a page whose inputs
/// have not changed is not rendered again: the Mustache library finds each key by dynamic casts
/// and reflection, and was most of a signed-in page's cost (issue 13).
///
/// The one input that differs on nearly every request, the CSRF token, is rendered as a marker that
/// no visitor can know (random per process) and put in when the page is served. The key is the
/// context written out in full — every string, flag and number, in sorted order, with lengths — so
/// two contexts share a page only when they are equal; a context holding anything else (a value
/// of another type) is rendered every time. Who is signed in is decided before a page is asked for,
/// on every request; templates are read once at start-up (README "Templates"), so a remembered page
/// is always what rendering would give. Bounded: emptied when full.
final class RenderedPages: Sendable {
    /// Where the CSRF token goes.
    private let marker = "csrf-marker-" + SecureRandom.token()
    private let pages = BoundedMemo<PageKey, RenderedPage>(capacity: 256)

    /// The page for `context` as UTF-8 bytes, from `render` on first sight of these inputs.
    func page(_ template: String, _ original: [String: Any], render: ([String: Any]) -> String) -> [UInt8] {
        var context = original
        let csrf = original["csrf"] as? String
        if csrf != nil { context["csrf"] = marker }
        var key = PageKey(template)
        guard key.write(context) else { return Array(render(original).utf8) }
        guard let page = pages.value(for: key, make: { RenderedPage(render(context), holesAt: marker) }) else {
            return Array(render(original).utf8)
        }
        return page.filled(with: csrf ?? "")
    }
}

/// A rendered page as the bytes between its CSRF token's places, so serving it is one buffer
/// written once.
struct RenderedPage: Sendable {
    private let pieces: [[UInt8]]
    private let length: Int

    init(_ html: String, holesAt marker: String) {
        pieces = html.components(separatedBy: marker).map { Array($0.utf8) }
        length = pieces.reduce(0) { $0 + $1.count }
    }

    /// The page with `token` in every hole.
    func filled(with token: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + token.utf8.count * (pieces.count - 1))
        for (index, piece) in pieces.enumerated() {
            if index > 0 { bytes.append(contentsOf: token.utf8) }
            bytes.append(contentsOf: piece)
        }
        return bytes
    }
}

/// An unambiguous writing of a page's template and context, compared and hashed as bytes: each
/// value is a tag byte, then strings and lists with their length and dictionaries with their keys
/// sorted. Each value writes itself (`PageKeyValue`), so a value costs one dynamic cast, not a cast
/// to each candidate type in turn (which was most of the cost); a value of any other type, or an
/// absent optional, makes the page one that is rendered every time.
struct PageKey: Hashable, Sendable {
    private(set) var bytes: [UInt8] = []

    init(_ template: String) {
        bytes.reserveCapacity(2048)
        write(string: template)
    }

    static func == (lhs: PageKey, rhs: PageKey) -> Bool { lhs.bytes == rhs.bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// Appends `value`; false for a type it does not know (the page is then rendered every time).
    mutating func write(_ value: Any) -> Bool {
        guard let value = value as? any PageKeyValue else { return false }
        return value.write(to: &self)
    }

    fileprivate enum Tag {
        static let string = UInt8(ascii: "s")
        static let yes = UInt8(ascii: "T")
        static let no = UInt8(ascii: "F")
        static let integer = UInt8(ascii: "i")
        static let double = UInt8(ascii: "d")
        static let fields = UInt8(ascii: "{")
        static let list = UInt8(ascii: "[")
    }

    fileprivate mutating func write(tag: UInt8) {
        bytes.append(tag)
    }

    fileprivate mutating func write(number: Int) {
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    fileprivate mutating func write(string: String) {
        bytes.append(Tag.string)
        write(number: string.utf8.count)
        bytes.append(contentsOf: string.utf8)
    }
}

/// A value a page's context may hold, as it writes itself into a `PageKey`; false when it cannot
/// (the page is then rendered every time).
protocol PageKeyValue {
    func write(to key: inout PageKey) -> Bool
}

extension String: PageKeyValue {
    func write(to key: inout PageKey) -> Bool {
        key.write(string: self)
        return true
    }
}

extension Bool: PageKeyValue {
    func write(to key: inout PageKey) -> Bool {
        key.write(tag: self ? PageKey.Tag.yes : PageKey.Tag.no)
        return true
    }
}

extension Int: PageKeyValue {
    func write(to key: inout PageKey) -> Bool {
        key.write(tag: PageKey.Tag.integer)
        key.write(number: self)
        return true
    }
}

extension Double: PageKeyValue {
    func write(to key: inout PageKey) -> Bool {
        key.write(tag: PageKey.Tag.double)
        key.write(number: Int(truncatingIfNeeded: bitPattern))
        return true
    }
}

extension Optional: PageKeyValue {
    func write(to key: inout PageKey) -> Bool {
        guard let value = self else { return false }
        return key.write(value)
    }
}

extension Dictionary: PageKeyValue where Key == String {
    /// Keys in sorted order, as two equal dictionaries may list their entries in different orders.
    func write(to key: inout PageKey) -> Bool {
        key.write(tag: PageKey.Tag.fields)
        key.write(number: count)
        if count == 1, let (name, value) = first {
            key.write(string: name)
            return key.write(value)
        }
        for (name, value) in sorted(by: { $0.key < $1.key }) {
            key.write(string: name)
            guard key.write(value) else { return false }
        }
        return true
    }
}

extension Array: PageKeyValue {
    func write(to key: inout PageKey) -> Bool {
        key.write(tag: PageKey.Tag.list)
        key.write(number: count)
        for item in self {
            guard key.write(item) else { return false }
        }
        return true
    }
}
