/// The comparison operators PocketBase's filter syntax has and this module compiles.
enum ComparisonOperator: String, Sendable {
    case equal = "="
    case notEqual = "!="
    case greater = ">"
    case greaterOrEqual = ">="
    case less = "<"
    case lessOrEqual = "<="
    case like = "~"
    case notLike = "!~"
}

struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case text(String)
        case number(FilterValue)
        case comparison(ComparisonOperator)
        case and
        case or
        case openParen
        case closeParen
        case end
    }

    let kind: Kind
    /// 0-based offset in Unicode scalars.
    let position: Int
    /// The token as typed, for error messages.
    let source: String
}

/// Splits a filter into tokens with fexpr's lexical rules (the tokenizer behind PocketBase's filters):
/// identifiers start with a letter, `_` or `@` and go on with letters, digits, `_` and `.` (a `:` is taken
/// in too, so that `name:lower` is reported as an unsupported modifier rather than a stray character);
/// numbers are `-?digits(.digits)?`; text is `'…'` or `"…"` where a backslash before the quote character
/// escapes it and every other backslash is kept as typed; `// …` comments run to the end of the line.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ input: String) {
        scalars = Array(input.unicodeScalars)
    }

    static func tokens(_ input: String) throws(FilterError) -> [Token] {
        var lexer = Lexer(input)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private func text(from start: Int) -> String {
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars[start..<index])
        return result
    }

    private mutating func next() throws(FilterError) -> Token {
        skipWhitespaceAndComments()
        let start = index
        guard let scalar = peek() else { return Token(kind: .end, position: start, source: "") }

        switch scalar {
        case "(":
            index += 1
            return Token(kind: .openParen, position: start, source: "(")
        case ")":
            index += 1
            return Token(kind: .closeParen, position: start, source: ")")
        case "'", "\"":
            return try scanText(quote: scalar)
        case "&", "|":
            while let next = peek(), next == "&" || next == "|" { index += 1 }
            let literal = text(from: start)
            switch literal {
            case "&&": return Token(kind: .and, position: start, source: literal)
            case "||": return Token(kind: .or, position: start, source: literal)
            default: throw FilterError("unknown operator \"\(literal)\"", at: start)
            }
        case "?":
            index += 1
            while let next = peek(), Self.isSign(next) { index += 1 }
            throw FilterError("unsupported operator \"\(text(from: start))\"", at: start)
        default:
            break
        }

        if Self.isSign(scalar) {
            while let next = peek(), Self.isSign(next) || next == "?" { index += 1 }
            let literal = text(from: start)
            guard let comparison = ComparisonOperator(rawValue: literal) else {
                throw FilterError("unknown operator \"\(literal)\"", at: start)
            }
            return Token(kind: .comparison(comparison), position: start, source: literal)
        }
        if Self.isDigit(scalar) || (scalar == "-" && peek(1).map(Self.isDigit) == true) {
            return try scanNumber()
        }
        if Self.isLetter(scalar) || scalar == "_" || scalar == "@" {
            return try scanIdentifier()
        }
        throw FilterError("unexpected character \"\(scalar.escaped(asASCII: false))\"", at: start)
    }

    private mutating func skipWhitespaceAndComments() {
        while let scalar = peek() {
            if scalar.properties.isWhitespace {
                index += 1
            } else if scalar == "/" && peek(1) == "/" {
                while let next = peek(), next != "\n" { index += 1 }
            } else {
                return
            }
        }
    }

    private mutating func scanText(quote: Unicode.Scalar) throws(FilterError) -> Token {
        let start = index
        index += 1
        var value = ""
        var previous: Unicode.Scalar?
        while let scalar = peek() {
            index += 1
            if scalar == quote {
                if previous == "\\" {
                    // `\"` inside "…" (or `\'` inside '…') is the quote itself.
                    value.unicodeScalars.removeLast()
                } else {
                    return Token(kind: .text(value), position: start, source: text(from: start))
                }
            }
            value.unicodeScalars.append(scalar)
            previous = scalar
        }
        throw FilterError("unterminated string", at: start)
    }

    private mutating func scanNumber() throws(FilterError) -> Token {
        let start = index
        if peek() == "-" { index += 1 }
        while let scalar = peek(), Self.isDigit(scalar) || scalar == "." { index += 1 }
        let literal = text(from: start)
        let parts = literal.drop(while: { $0 == "-" }).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }) else {
            throw FilterError("invalid number \"\(literal)\"", at: start)
        }
        if parts.count == 1, let integer = Int64(literal) {
            return Token(kind: .number(.int(integer)), position: start, source: literal)
        }
        guard let real = Double(literal), real.isFinite else {
            throw FilterError("invalid number \"\(literal)\"", at: start)
        }
        return Token(kind: .number(.double(real)), position: start, source: literal)
    }

    private mutating func scanIdentifier() throws(FilterError) -> Token {
        let start = index
        index += 1
        while let scalar = peek(), Self.isIdentifierPart(scalar) { index += 1 }
        let literal = text(from: start)
        guard let last = literal.unicodeScalars.last, Self.isLetter(last) || Self.isDigit(last) || last == "_" else {
            throw FilterError("invalid identifier \"\(literal)\"", at: start)
        }
        return Token(kind: .identifier(literal), position: start, source: literal)
    }

    private static func isSign(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "=" || scalar == "!" || scalar == ">" || scalar == "<" || scalar == "~"
    }

    private static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isLetter(scalar) || isDigit(scalar) || scalar == "_" || scalar == "." || scalar == ":"
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
