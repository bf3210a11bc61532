/// A `<media-condition>` of Media Queries 4: media features joined by `and`, `or` and `not`, with
/// parentheses; what a `sizes` entry starts with, and what follows a media type in a media query.
///
/// What has the shape of a condition but is not one this code knows, `<general-enclosed>`, is
/// kept as unknown (``ThreeValuedTruth``). Its grammar here is `( <ident> <any-value>? )` or a
/// function, as Media Queries 4 wrote it when WPT's `sizes` cases were made: `(!)` and `(123)`
/// match nothing, so `(min-width: 0) or (!)` is not a condition at all, as those cases require.
indirect enum MediaCondition: Sendable, Hashable {
    case feature(MediaFeatureTest)
    /// `<general-enclosed>`, an unknown feature, or a value a feature does not take.
    case unknown
    case not(MediaCondition)
    case and([MediaCondition])
    case or([MediaCondition])

    /// Reads `values` whole as a condition; nil if they are not one. `allowingOr` is false after a
    /// media type, where Media Queries 4 has `<media-condition-without-or>`.
    init?(_ values: ArraySlice<CSSComponentValue>, allowingOr: Bool = true) {
        var reader = Reader(values: Array(values))
        guard let condition = reader.condition(allowingOr: allowingOr), reader.atEnd else { return nil }
        self = condition
    }

    func evaluate(on device: DeviceProfile) -> ThreeValuedTruth {
        switch self {
        case .feature(let test):
            ThreeValuedTruth(test.evaluate(on: device))
        case .unknown:
            .unknown
        case .not(let condition):
            !condition.evaluate(on: device)
        case .and(let conditions):
            conditions.reduce(.true) { $0 && $1.evaluate(on: device) }
        case .or(let conditions):
            conditions.reduce(.false) { $0 || $1.evaluate(on: device) }
        }
    }

    /// Reads a condition from component values, whitespace between them skipped.
    private struct Reader {
        let values: [CSSComponentValue]
        var index = 0

        var atEnd: Bool {
            mutating get {
                skipWhitespace()
                return index == values.count
            }
        }

        mutating func condition(allowingOr: Bool) -> MediaCondition? {
            if consumeKeyword("not") {
                return inParens().map { .not($0) }
            }
            guard let first = inParens() else { return nil }
            let keyword: String
            if peekKeyword("and") {
                keyword = "and"
            } else if allowingOr, peekKeyword("or") {
                keyword = "or"
            } else {
                return first
            }
            var operands = [first]
            while consumeKeyword(keyword) {
                guard let operand = inParens() else { return nil }
                operands.append(operand)
            }
            return keyword == "and" ? .and(operands) : .or(operands)
        }

        /// `<media-in-parens>`: `( <media-condition> )`, `( <media-feature> )` or `<general-enclosed>`.
        private mutating func inParens() -> MediaCondition? {
            skipWhitespace()
            guard index < values.count else { return nil }
            let value = values[index]
            index += 1
            switch value {
            case .block(.parenthesis, let contents):
                if let nested = MediaCondition(contents[...]) {
                    return nested
                }
                if let test = MediaFeatureTest(contents[...]) {
                    return .feature(test)
                }
                let inside = contents.trimmingWhitespace()
                guard case .token(.ident) = inside.first, inside.allSatisfy(\.isAnyValue) else { return nil }
                return .unknown
            case .function(_, let arguments):
                return arguments.allSatisfy(\.isAnyValue) ? .unknown : nil
            default:
                return nil
            }
        }

        private mutating func peekKeyword(_ keyword: String) -> Bool {
            skipWhitespace()
            guard index < values.count, case .token(.ident(let word)) = values[index] else { return false }
            return word.lowercased() == keyword
        }

        private mutating func consumeKeyword(_ keyword: String) -> Bool {
            guard peekKeyword(keyword) else { return false }
            index += 1
            return true
        }

        private mutating func skipWhitespace() {
            while index < values.count, values[index].isWhitespace {
                index += 1
            }
        }
    }
}
