/// Splits CSS text into ``CSSToken``s as CSS Syntax Level 3 does
/// (https://www.w3.org/TR/css-syntax-3/#tokenizer-algorithms), comments dropped.
///
/// Attributes are untrusted text; every path consumes at least one code point, so any input ends.
struct CSSTokenizer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    /// The tokens of `text`, after CSS's preprocessing (CR, FF and CRLF as LF; NUL as U+FFFD).
    static func tokens(of text: String) -> [CSSToken] {
        var tokenizer = CSSTokenizer(text)
        var tokens: [CSSToken] = []
        while let token = tokenizer.next() {
            tokens.append(token)
        }
        return tokens
    }

    init(_ text: String) {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(text.unicodeScalars.count)
        var afterCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r":
                scalars.append("\n")
                afterCR = true
                continue
            case "\n" where afterCR:
                break
            case "\u{C}":
                scalars.append("\n")
            case "\0":
                scalars.append(Self.replacement)
            default:
                scalars.append(scalar)
            }
            afterCR = false
        }
        self.scalars = scalars
    }

    /// The next token, or nil at the end.
    mutating func next() -> CSSToken? {
        skipComments()
        guard let c = peek() else { return nil }
        switch c {
        case "\n", "\t", " ":
            while let next = peek(), Self.isWhitespace(next) {
                index += 1
            }
            return .whitespace
        case "\"", "'":
            index += 1
            return consumeString(endingWith: c)
        case "#":
            if let next = peek(1), Self.isIdentCodePoint(next) || Self.isValidEscape(peek(1), peek(2)) {
                index += 1
                let isIdentifier = startsIdentSequence()
                return .hash(consumeIdentSequence(), isIdentifier: isIdentifier)
            }
            index += 1
            return .delim(c)
        case "(": index += 1; return .openParenthesis
        case ")": index += 1; return .closeParenthesis
        case "[": index += 1; return .openBracket
        case "]": index += 1; return .closeBracket
        case "{": index += 1; return .openBrace
        case "}": index += 1; return .closeBrace
        case ",": index += 1; return .comma
        case ":": index += 1; return .colon
        case ";": index += 1; return .semicolon
        case "+", ".":
            if startsNumber() { return consumeNumeric() }
            index += 1
            return .delim(c)
        case "-":
            if startsNumber() { return consumeNumeric() }
            if peek(1) == "-", peek(2) == ">" {
                index += 3
                return .cdc
            }
            if startsIdentSequence() { return consumeIdentLike() }
            index += 1
            return .delim(c)
        case "<":
            if peek(1) == "!", peek(2) == "-", peek(3) == "-" {
                index += 4
                return .cdo
            }
            index += 1
            return .delim(c)
        case "@":
            index += 1
            if startsIdentSequence() { return .atKeyword(consumeIdentSequence()) }
            return .delim(c)
        case "\\":
            if Self.isValidEscape(c, peek(1)) { return consumeIdentLike() }
            index += 1
            return .delim(c)
        default:
            if Self.isDigit(c) { return consumeNumeric() }
            if Self.isIdentStart(c) { return consumeIdentLike() }
            index += 1
            return .delim(c)
        }
    }

    // MARK: Token kinds

    private mutating func skipComments() {
        while peek() == "/", peek(1) == "*" {
            index += 2
            while index < scalars.count, !(scalars[index] == "*" && peek(1) == "/") {
                index += 1
            }
            index = min(index + 2, scalars.count)
        }
    }

    private mutating func consumeString(endingWith ending: Unicode.Scalar) -> CSSToken {
        var text = String.UnicodeScalarView()
        while let c = peek() {
            if c == ending {
                index += 1
                return .string(String(text))
            }
            if c == "\n" {
                return .badString
            }
            index += 1
            if c == "\\" {
                guard let next = peek() else { continue }
                if next == "\n" {
                    index += 1
                } else {
                    text.append(consumeEscapedCodePoint())
                }
            } else {
                text.append(c)
            }
        }
        return .string(String(text))
    }

    private mutating func consumeNumeric() -> CSSToken {
        let number = consumeNumber()
        if startsIdentSequence() {
            return .dimension(number, unit: consumeIdentSequence())
        }
        if peek() == "%" {
            index += 1
            return .percentage(number)
        }
        return .number(number)
    }

    /// Reads the number as CSS does, then has the standard library convert the digits it kept,
    /// which rounds as exactly as strtod: `+0.11e+01` is the double nearest 1.1.
    private mutating func consumeNumber() -> CSSNumber {
        var text = ""
        var isInteger = true
        if let sign = peek(), sign == "+" || sign == "-" {
            if sign == "-" { text.append("-") }
            index += 1
        }
        text += consumeDigits(orZero: true)
        if peek() == ".", let digit = peek(1), Self.isDigit(digit) {
            index += 1
            text += "." + consumeDigits(orZero: false)
            isInteger = false
        }
        if let e = peek(), e == "e" || e == "E" {
            let sign = peek(1)
            let hasSign = sign == "+" || sign == "-"
            if let digit = peek(hasSign ? 2 : 1), Self.isDigit(digit) {
                index += hasSign ? 2 : 1
                text += "e" + (sign == "-" ? "-" : "") + consumeDigits(orZero: false)
                isInteger = false
            }
        }
        return CSSNumber(value: Double(text) ?? 0, isInteger: isInteger)
    }

    private mutating func consumeDigits(orZero: Bool) -> String {
        var digits = ""
        while let c = peek(), Self.isDigit(c) {
            digits.unicodeScalars.append(c)
            index += 1
        }
        return digits.isEmpty && orZero ? "0" : digits
    }

    private mutating func consumeIdentLike() -> CSSToken {
        let name = consumeIdentSequence()
        guard peek() == "(" else { return .ident(name) }
        index += 1
        guard name.lowercased() == "url" else { return .function(name) }
        while let c = peek(), Self.isWhitespace(c), let next = peek(1), Self.isWhitespace(next) {
            index += 1
        }
        let quoteAt = peek().map(Self.isWhitespace) == true ? 1 : 0
        if let quote = peek(quoteAt), quote == "\"" || quote == "'" {
            return .function(name)
        }
        return consumeURL()
    }

    private mutating func consumeURL() -> CSSToken {
        var text = String.UnicodeScalarView()
        while let c = peek(), Self.isWhitespace(c) {
            index += 1
        }
        while let c = peek() {
            index += 1
            switch c {
            case ")":
                return .url(String(text))
            case "\n", "\t", " ":
                while let next = peek(), Self.isWhitespace(next) {
                    index += 1
                }
                if peek() == nil || peek() == ")" {
                    index = min(index + 1, scalars.count)
                    return .url(String(text))
                }
                consumeBadURLRemnants()
                return .badURL
            case "\"", "'", "(":
                consumeBadURLRemnants()
                return .badURL
            case "\\":
                if Self.isValidEscape(c, peek()) {
                    text.append(consumeEscapedCodePoint())
                } else {
                    consumeBadURLRemnants()
                    return .badURL
                }
            default:
                if Self.isNonPrintable(c) {
                    consumeBadURLRemnants()
                    return .badURL
                }
                text.append(c)
            }
        }
        return .url(String(text))
    }

    private mutating func consumeBadURLRemnants() {
        while let c = peek() {
            index += 1
            if c == ")" { return }
            if Self.isValidEscape(c, peek()) {
                _ = consumeEscapedCodePoint()
            }
        }
    }

    private mutating func consumeIdentSequence() -> String {
        var text = String.UnicodeScalarView()
        while let c = peek() {
            if Self.isIdentCodePoint(c) {
                text.append(c)
                index += 1
            } else if Self.isValidEscape(c, peek(1)) {
                index += 1
                text.append(consumeEscapedCodePoint())
            } else {
                break
            }
        }
        return String(text)
    }

    /// The code point a backslash (already consumed) stands for: up to six hex digits and one
    /// whitespace after them, or the next code point itself.
    private mutating func consumeEscapedCodePoint() -> Unicode.Scalar {
        guard let c = peek() else { return Self.replacement }
        index += 1
        guard let first = Self.hexValue(c) else { return c }
        var value = first
        var digits = 1
        while digits < 6, let next = peek(), let digit = Self.hexValue(next) {
            value = value * 16 + digit
            digits += 1
            index += 1
        }
        if let next = peek(), Self.isWhitespace(next) {
            index += 1
        }
        guard value != 0, let scalar = Unicode.Scalar(value) else { return Self.replacement }
        return scalar
    }

    // MARK: Lookahead

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private func startsNumber() -> Bool {
        guard let c = peek() else { return false }
        switch c {
        case "+", "-":
            if let next = peek(1), Self.isDigit(next) { return true }
            if peek(1) == ".", let after = peek(2), Self.isDigit(after) { return true }
            return false
        case ".":
            return peek(1).map(Self.isDigit) ?? false
        default:
            return Self.isDigit(c)
        }
    }

    private func startsIdentSequence() -> Bool {
        guard let c = peek() else { return false }
        switch c {
        case "-":
            guard let next = peek(1) else { return false }
            return Self.isIdentStart(next) || next == "-" || Self.isValidEscape(next, peek(2))
        case "\\":
            return Self.isValidEscape(c, peek(1))
        default:
            return Self.isIdentStart(c)
        }
    }

    // MARK: Code point classes

    private static let replacement: Unicode.Scalar = "\u{FFFD}"

    private static func isWhitespace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\n" || c == "\t" }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    private static func isIdentStart(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" || c.value >= 0x80
    }

    private static func isIdentCodePoint(_ c: Unicode.Scalar) -> Bool { isIdentStart(c) || isDigit(c) || c == "-" }

    private static func isNonPrintable(_ c: Unicode.Scalar) -> Bool {
        c.value <= 0x08 || c.value == 0x0B || (0x0E...0x1F).contains(c.value) || c.value == 0x7F
    }

    private static func isValidEscape(_ first: Unicode.Scalar?, _ second: Unicode.Scalar?) -> Bool {
        first == "\\" && second != "\n"
    }

    private static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": c.value - 0x30
        case "a"..."f": c.value - 0x61 + 10
        case "A"..."F": c.value - 0x41 + 10
        default: nil
        }
    }
}
