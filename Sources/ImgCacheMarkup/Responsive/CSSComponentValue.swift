/// A component value of CSS Syntax Level 3 (https://www.w3.org/TR/css-syntax-3/#component-value):
/// a token, or a block or function with what it encloses. Grammars are matched against these, so
/// that a comma or a parenthesis inside `calc(…)` or `(…)` is not read as one of the outer list's.
indirect enum CSSComponentValue: Sendable, Hashable {
    /// The bracket a simple block opens with.
    enum Bracket: Sendable, Hashable {
        case parenthesis, square, curly
    }

    case token(CSSToken)
    /// A block; one the text ended in is closed there, as CSS closes it (`calc(1px` is `calc(1px)`).
    case block(Bracket, [CSSComponentValue])
    /// A function with its arguments, unsplit.
    case function(String, [CSSComponentValue])

    /// Blocks nested deeper than this are read as one unreadable block: no grammar here needs
    /// more, and the matchers recurse through blocks, so an attribute of a million `(` must not
    /// recurse a million times.
    static let maximumNesting = 32

    /// The text read as "a list of component values".
    static func list(_ text: String) -> [CSSComponentValue] {
        var reader = Reader(tokens: CSSTokenizer.tokens(of: text))
        return reader.consumeValues(until: nil, depth: 0)
    }

    /// The text read as "a comma-separated list of component values": one list per top-level comma,
    /// commas inside blocks and functions kept where they are.
    static func commaSeparatedLists(_ text: String) -> [[CSSComponentValue]] {
        var lists: [[CSSComponentValue]] = [[]]
        for value in list(text) {
            if value == .token(.comma) {
                lists.append([])
            } else {
                lists[lists.count - 1].append(value)
            }
        }
        return lists
    }

    var isWhitespace: Bool { self == .token(.whitespace) }

    /// The value is "any value" of CSS Syntax (https://www.w3.org/TR/css-syntax-3/#typedef-any-value):
    /// no bad string or URL, no closing bracket without its opening one, at any depth.
    var isAnyValue: Bool {
        switch self {
        case .token(.badString), .token(.badURL), .token(.closeParenthesis), .token(.closeBracket),
             .token(.closeBrace):
            false
        case .token:
            true
        case .block(_, let values), .function(_, let values):
            values.allSatisfy(\.isAnyValue)
        }
    }

    private struct Reader {
        let tokens: [CSSToken]
        var index = 0

        /// Values up to `closing` (consumed) or the end.
        mutating func consumeValues(until closing: CSSToken?, depth: Int) -> [CSSComponentValue] {
            var values: [CSSComponentValue] = []
            while index < tokens.count {
                let token = tokens[index]
                index += 1
                if token == closing {
                    return values
                }
                if let (bracket, closer) = Self.opening(token) {
                    values.append(consumeBlock(depth: depth + 1, closer: closer) { .block(bracket, $0) })
                } else if case .function(let name) = token {
                    values.append(consumeBlock(depth: depth + 1, closer: .closeParenthesis) { .function(name, $0) })
                } else {
                    values.append(.token(token))
                }
            }
            return values
        }

        private mutating func consumeBlock(depth: Int, closer: CSSToken,
                                           make: ([CSSComponentValue]) -> CSSComponentValue) -> CSSComponentValue {
            if depth <= CSSComponentValue.maximumNesting {
                return make(consumeValues(until: closer, depth: depth))
            }
            // Too deep: skip to the matching closer, counting, and keep a bad string for the
            // contents, which no grammar here matches.
            var closers = [closer]
            while index < tokens.count, let expected = closers.last {
                let token = tokens[index]
                index += 1
                if token == expected {
                    closers.removeLast()
                } else if let (_, nested) = Self.opening(token) {
                    closers.append(nested)
                } else if case .function = token {
                    closers.append(.closeParenthesis)
                }
            }
            return make([.token(.badString)])
        }

        private static func opening(_ token: CSSToken) -> (Bracket, CSSToken)? {
            switch token {
            case .openParenthesis: (.parenthesis, .closeParenthesis)
            case .openBracket: (.square, .closeBracket)
            case .openBrace: (.curly, .closeBrace)
            default: nil
            }
        }
    }
}

extension Array where Element == CSSComponentValue {
    /// The values without whitespace at either end.
    func trimmingWhitespace() -> ArraySlice<CSSComponentValue> {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return [] }
        return self[first...last]
    }
}
