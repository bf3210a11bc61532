/// A token of CSS Syntax Level 3 (https://www.w3.org/TR/css-syntax-3/#tokenization): what
/// `sizes` attributes and media queries are read from, so that they split, nest and fail where a
/// browser's do (comments between tokens, escapes, `+.5e1px`, `1e1.5px` as two numbers).
enum CSSToken: Sendable, Hashable {
    case whitespace
    case ident(String)
    /// A name followed by `(`; the name is unescaped, as written otherwise.
    case function(String)
    case atKeyword(String)
    /// `#name`; `isIdentifier` when the name would also read as an identifier (CSS's "id" type).
    case hash(String, isIdentifier: Bool)
    case string(String)
    /// A string cut by a newline: it matches no grammar, so whatever holds it is invalid.
    case badString
    case url(String)
    case badURL
    case number(CSSNumber)
    case percentage(CSSNumber)
    /// A number with a unit, the unit as written (units compare case-insensitively).
    case dimension(CSSNumber, unit: String)
    case delim(Unicode.Scalar)
    /// `<!--` and `-->`, kept apart from delimiters as CSS does.
    case cdo, cdc
    case colon, semicolon, comma
    case openParenthesis, closeParenthesis
    case openBracket, closeBracket
    case openBrace, closeBrace
}

/// The numeric part of a number, percentage or dimension token.
struct CSSNumber: Sendable, Hashable {
    var value: Double
    /// Written without a fraction or exponent (`3`, `-3`), which `<integer>` values need.
    var isInteger: Bool
}
