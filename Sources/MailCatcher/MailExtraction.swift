import Foundation

/// Pulls the one-time code and the action link out of a caught mail, so the dev mailbox can show
/// them the way it does for Gatehouse's own mail.
public enum MailExtraction {
    /// Words that, shortly before a number on the same line, mark it as the code.
    static let codeWords = ["code", "otp", "one-time", "password", "passcode", "pin", "token"]
    /// Words that mark a link as the one to click.
    static let linkWords = ["verif", "confirm", "reset", "activate", "magic", "token", "otp", "login", "sign-in", "signin"]

    /// A standalone 6–8 digit number: preferably alone on its line, else right after a word like
    /// "code", else the first one. Numbers inside URLs, words or longer numbers do not count.
    public static func code(in text: String) -> String? {
        var candidates: [(digits: String, lineIsJustCode: Bool, afterCodeWord: Bool)] = []
        for line in withoutURLs(text).split(separator: "\n") {
            let characters = Array(line)
            var index = 0
            while index < characters.count {
                guard characters[index].isASCII, characters[index].isNumber else {
                    index += 1
                    continue
                }
                var end = index
                while end < characters.count, characters[end].isASCII, characters[end].isNumber { end += 1 }
                if (6...8).contains(end - index), standsAlone(characters, start: index, end: end) {
                    let digits = String(characters[index..<end])
                    let before = String(characters[max(0, index - 40)..<index]).lowercased()
                    let trimmedLine = line.trimmingCharacters(in: .whitespaces.union(.punctuationCharacters).union(.symbols))
                    candidates.append((digits, trimmedLine == digits, codeWords.contains { before.contains($0) }))
                }
                index = end
            }
        }
        return (candidates.first { $0.lineIsJustCode } ?? candidates.first { $0.afterCodeWord } ?? candidates.first)?.digits
    }

    /// The link to act on: among the http(s) URLs in the text and then the `href`s in the HTML, the
    /// first that looks like a verification, confirmation or reset link, else the first of all.
    public static func link(text: String, html: String) -> String? {
        let candidates = urls(in: text) + hrefs(in: html)
        return candidates.first { url in
            let lower = url.lowercased()
            return linkWords.contains { lower.contains($0) }
        } ?? candidates.first
    }

    /// Not glued to letters, digits, or to a digit across `.`, `,`, `-`, `/` (a decimal, a date, a path).
    private static func standsAlone(_ characters: [Character], start: Int, end: Int) -> Bool {
        func blocks(_ neighbour: Int, _ beyond: Int) -> Bool {
            guard characters.indices.contains(neighbour) else { return false }
            let character = characters[neighbour]
            if character.isLetter || character.isNumber || character == "_" { return true }
            guard ".,-/:".contains(character), characters.indices.contains(beyond) else { return false }
            return characters[beyond].isNumber
        }
        return !blocks(start - 1, start - 2) && !blocks(end, end + 1)
    }

    private static func withoutURLs(_ text: String) -> String {
        var result = text
        for url in urls(in: text) { result = result.replacingOccurrences(of: url, with: " ") }
        return result
    }

    /// `http://` and `https://` URLs in plain text, without trailing sentence punctuation.
    static func urls(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: "http", options: .caseInsensitive) {
            let tail = rest[start.lowerBound...]
            let lower = tail.prefix(8).lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
                rest = rest[start.upperBound...]
                continue
            }
            var url = tail.prefix { !$0.isWhitespace && !"<>\"'`".contains($0) }
            while let last = url.last, ".,;:!?)]}".contains(last) { url = url.dropLast() }
            found.append(String(url))
            rest = tail[url.endIndex...]
        }
        return found
    }

    /// `href` values in HTML that are http(s) URLs, entities decoded.
    static func hrefs(in html: String) -> [String] {
        var found: [String] = []
        var rest = Substring(html)
        while let attribute = rest.range(of: "href", options: .caseInsensitive) {
            var value = rest[attribute.upperBound...].drop { $0 == " " }
            rest = rest[attribute.upperBound...]
            guard value.first == "=" else { continue }
            value = value.dropFirst().drop { $0 == " " }
            let raw: Substring
            if let quote = value.first, quote == "\"" || quote == "'" {
                raw = value.dropFirst().prefix { $0 != quote }
            } else {
                raw = value.prefix { !$0.isWhitespace && $0 != ">" }
            }
            let url = HTMLText.decodeEntities(String(raw)).trimmingCharacters(in: .whitespaces)
            let lower = url.lowercased()
            if lower.hasPrefix("https://") || lower.hasPrefix("http://") { found.append(url) }
        }
        return found
    }
}
