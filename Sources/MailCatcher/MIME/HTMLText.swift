import Foundation

/// Crude HTML-to-text for mails that carry only HTML: drops `<style>`/`<script>`/`<head>` blocks and
/// tags, turns block ends into line breaks and decodes the common entities. For reading codes, not
/// for display fidelity.
enum HTMLText {
    static func plain(_ html: String) -> String {
        var text = html
        for block in ["head", "style", "script"] {
            while let open = text.range(of: "<\(block)", options: .caseInsensitive),
                let close = text.range(of: "</\(block)>", options: .caseInsensitive, range: open.upperBound..<text.endIndex)
            {
                text.removeSubrange(open.lowerBound..<close.upperBound)
            }
        }
        var output = ""
        var inTag = false
        var tag = ""
        for character in text {
            if inTag {
                if character == ">" {
                    inTag = false
                    let name =
                        tag.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
                        .split(separator: " ").first.map(String.init) ?? ""
                    if ["br", "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "table"].contains(name) { output += "\n" }
                } else {
                    tag.append(character)
                }
            } else if character == "<" {
                inTag = true
                tag = ""
            } else {
                output.append(character)
            }
        }
        let lines = decodeEntities(output).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).joined(separator: " ") }
        var result: [String] = []
        for line in lines where !(line.isEmpty && (result.last?.isEmpty ?? true)) {
            result.append(line)
        }
        return result.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`, `&nbsp;` and numeric references.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            output += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(10).firstIndex(of: ";") else {
                output += "&"
                rest = after
                continue
            }
            let name = after[..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " "]
            if let value = named[name.lowercased()] {
                output += value
            } else if name.hasPrefix("#"), let scalar = numericScalar(name.dropFirst()) {
                output.unicodeScalars.append(scalar)
            } else {
                output += "&" + name + ";"
            }
            rest = after[after.index(after: semicolon)...]
        }
        return output + rest
    }

    private static func numericScalar(_ digits: Substring) -> Unicode.Scalar? {
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return value.flatMap(Unicode.Scalar.init)
    }
}
