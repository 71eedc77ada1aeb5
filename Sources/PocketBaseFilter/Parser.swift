/// A parsed filter. `||` and `&&` chains are flat lists, so only parentheses add depth.
indirect enum FilterNode: Sendable {
    case or([FilterNode])
    case and([FilterNode])
    case comparison(Comparison)
}

struct Operand: Sendable {
    enum Kind: Sendable {
        case identifier(String)
        case value(FilterValue)
    }

    let kind: Kind
    let position: Int
}

struct Comparison: Sendable {
    let left: Operand
    let comparison: ComparisonOperator
    let right: Operand
}

/// Recursive descent over the tokens: `expr := and ('||' and)*`, `and := primary ('&&' primary)*`,
/// `primary := '(' expr ')' | operand operator operand`. `&&` binds tighter than `||`, as in PocketBase.
struct Parser {
    static let maximumDepth = 32

    private let tokens: [Token]
    private var index = 0
    private var depth = 0

    init(tokens: [Token]) {
        self.tokens = tokens
    }

    static func parse(_ filter: String) throws(FilterError) -> FilterNode {
        var parser = Parser(tokens: try Lexer.tokens(filter))
        if parser.current.kind == .end { throw FilterError("empty filter", at: nil) }
        let node = try parser.parseOr()
        guard parser.current.kind == .end else { throw parser.unexpected(expecting: "\"&&\", \"||\" or the end") }
        return node
    }

    private var current: Token { tokens[index] }

    private mutating func advance() -> Token {
        let token = tokens[index]
        if token.kind != .end { index += 1 }
        return token
    }

    private func unexpected(expecting: String) -> FilterError {
        let token = current
        if token.kind == .end {
            return FilterError("unexpected end of filter", at: token.position, hint: "expected \(expecting)")
        }
        return FilterError("unexpected \"\(token.source)\"", at: token.position, hint: "expected \(expecting)")
    }

    private mutating func parseOr() throws(FilterError) -> FilterNode {
        var items = [try parseAnd()]
        while current.kind == .or {
            _ = advance()
            items.append(try parseAnd())
        }
        return items.count == 1 ? items[0] : .or(items)
    }

    private mutating func parseAnd() throws(FilterError) -> FilterNode {
        var items = [try parsePrimary()]
        while current.kind == .and {
            _ = advance()
            items.append(try parsePrimary())
        }
        return items.count == 1 ? items[0] : .and(items)
    }

    private mutating func parsePrimary() throws(FilterError) -> FilterNode {
        if current.kind == .openParen {
            let open = advance()
            depth += 1
            if depth > Self.maximumDepth {
                let reason = "too deeply nested: more than \(Self.maximumDepth) levels of parentheses"
                throw FilterError(reason, at: open.position)
            }
            if current.kind == .closeParen { throw FilterError("empty parentheses", at: open.position) }
            let node = try parseOr()
            guard current.kind == .closeParen else {
                throw unexpected(expecting: "\")\" to close \"(\" at \(open.position)")
            }
            _ = advance()
            depth -= 1
            return node
        }
        let left = try parseOperand()
        guard case .comparison(let comparison) = current.kind else { throw unexpected(expecting: "an operator") }
        _ = advance()
        let right = try parseOperand()
        return .comparison(Comparison(left: left, comparison: comparison, right: right))
    }

    private mutating func parseOperand() throws(FilterError) -> Operand {
        let token = current
        switch token.kind {
        case .identifier(let name):
            _ = advance()
            return Operand(kind: .identifier(name), position: token.position)
        case .text(let text):
            _ = advance()
            return Operand(kind: .value(.text(text)), position: token.position)
        case .number(let number):
            _ = advance()
            return Operand(kind: .value(number), position: token.position)
        default:
            throw unexpected(expecting: "a field or a value")
        }
    }
}
