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
    /// Each page split at the marker.
    private let pages = BoundedMemo<[String]>(capacity: 256)

    /// The page for `context`, from `render` on first sight of these inputs.
    func page(_ template: String, _ original: [String: Any], render: ([String: Any]) -> String) -> String {
        var context = original
        let csrf = original["csrf"] as? String
        if csrf != nil { context["csrf"] = marker }
        var key = template + "\n"
        guard Self.write(context, to: &key) else { return render(original) }
        guard let parts = pages.value(for: key, make: { render(context).components(separatedBy: marker) }) else {
            return render(original)
        }
        return parts.joined(separator: csrf ?? "")
    }

    /// Appends an unambiguous text of `value`; false for a type it does not know.
    private static func write(_ value: Any, to key: inout String) -> Bool {
        switch value {
        case let text as String:
            key += "s\(text.utf8.count):"
            key += text
        case let flag as Bool:
            key += flag ? "T" : "F"
        case let number as Int:
            key += "i\(number);"
        case let number as Double:
            key += "d\(number);"
        case let fields as [String: Any]:
            key += "{"
            for name in fields.keys.sorted() {
                key += "\(name.utf8.count):"
                key += name
                guard write(fields[name]!, to: &key) else { return false }
            }
            key += "}"
        case let items as [[String: Any]]:
            key += "["
            for item in items { guard write(item, to: &key) else { return false } }
            key += "]"
        case let items as [Any]:
            key += "("
            for item in items { guard write(item, to: &key) else { return false } }
            key += ")"
        default:
            return false
        }
        return true
    }
}
