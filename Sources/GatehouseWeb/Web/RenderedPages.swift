import Accounts
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
    /// The key is written with the marker in the token's place, so the context is copied (to put
    /// the marker in) only when the page is rendered.
    func page(_ template: String, _ original: [String: Any], render: ([String: Any]) -> String) -> [UInt8] {
        let csrf = original["csrf"] as? String
        var key = PageKey(template)
        guard key.write(context: original, csrfAs: csrf == nil ? nil : marker) else { return Array(render(original).utf8) }
        let page = pages.value(for: key) {
            var context = original
            if csrf != nil { context["csrf"] = marker }
            return RenderedPage(render(context), holesAt: marker)
        }
        guard let page else { return Array(render(original).utf8) }
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
/// sorted. The types contexts are made of are recognised by their exact type and written without
/// boxing their elements (a dynamic cast of each value to each candidate type in turn, and a
/// `[String: Bool]` converted into a `[String: Any]`, were most of the cost); anything else falls
/// back to those casts, which also see through optionals. A value of another type makes the page
/// one that is rendered every time.
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

    private enum Tag {
        static let string = UInt8(ascii: "s")
        static let yes = UInt8(ascii: "T")
        static let no = UInt8(ascii: "F")
        static let integer = UInt8(ascii: "i")
        static let double = UInt8(ascii: "d")
        static let fields = UInt8(ascii: "{")
        static let list = UInt8(ascii: "[")
    }

    /// Appends a page's whole context, its `csrf` entry written as `marker` when one is given; false
    /// when it holds a value of a type this does not know.
    mutating func write(context: [String: Any], csrfAs marker: String?) -> Bool {
        guard let marker else { return write(context) }
        return write(fields: context) { key, name, value in name == "csrf" ? key.write(string: marker) : key.write(value) }
    }

    /// Appends `value`; false for a type it does not know (the page is then rendered every time).
    mutating func write(_ value: Any) -> Bool {
        let type = Swift.type(of: value)
        if type == String.self {
            write(string: value as! String)
        } else if type == Bool.self {
            write(flag: value as! Bool)
        } else if type == [String: Any].self {
            return write(fields: value as! [String: Any]) { key, _, value in key.write(value) }
        } else if type == [String: String].self {
            return write(fields: value as! [String: String]) { key, _, text in key.write(string: text) }
        } else if type == [String: Bool].self {
            return write(fields: value as! [String: Bool]) { key, _, flag in key.write(flag: flag) }
        } else if type == [[String: Any]].self {
            return write(items: value as! [[String: Any]]) { key, fields in
                key.write(fields: fields) { key, _, value in key.write(value) }
            }
        } else if type == [[String: String]].self {
            return write(items: value as! [[String: String]]) { key, fields in
                key.write(fields: fields) { key, _, text in key.write(string: text) }
            }
        } else if type == Int.self {
            write(integer: value as! Int)
        } else {
            return writeCasting(value)
        }
        return true
    }

    private mutating func write(number: Int) {
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @discardableResult
    private mutating func write(string: String) -> Bool {
        bytes.append(Tag.string)
        write(number: string.utf8.count)
        bytes.append(contentsOf: string.utf8)
        return true
    }

    @discardableResult
    private mutating func write(flag: Bool) -> Bool {
        bytes.append(flag ? Tag.yes : Tag.no)
        return true
    }

    @discardableResult
    private mutating func write(integer: Int) -> Bool {
        bytes.append(Tag.integer)
        write(number: integer)
        return true
    }

    /// Entries in key order: two equal dictionaries may list them in different orders.
    private mutating func write<Value>(fields: [String: Value], each: (inout PageKey, String, Value) -> Bool) -> Bool {
        bytes.append(Tag.fields)
        write(number: fields.count)
        if fields.count == 1, let (name, value) = fields.first {
            write(string: name)
            return each(&self, name, value)
        }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            write(string: name)
            guard each(&self, name, value) else { return false }
        }
        return true
    }

    private mutating func write<Item>(items: [Item], each: (inout PageKey, Item) -> Bool) -> Bool {
        bytes.append(Tag.list)
        write(number: items.count)
        for item in items {
            guard each(&self, item) else { return false }
        }
        return true
    }

    /// The general case: any value that casts to one of the known types.
    private mutating func writeCasting(_ value: Any) -> Bool {
        switch value {
        case let text as String: return write(string: text)
        case let flag as Bool: return write(flag: flag)
        case let number as Int: return write(integer: number)
        case let number as Double:
            bytes.append(Tag.double)
            write(number: Int(truncatingIfNeeded: number.bitPattern))
            return true
        case let fields as [String: Any]: return write(fields: fields) { key, _, value in key.write(value) }
        case let items as [Any]: return write(items: items) { key, item in key.write(item) }
        default: return false
        }
    }
}
