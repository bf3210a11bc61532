/// What the inside of `( … )` asks of a ``MediaFeature``, in any of Media Queries 4's forms:
/// `(hover)`, `(orientation: portrait)`, `(min-width: 600px)`, `(width >= 600px)`,
/// `(400px < width <= 800px)`.
///
/// Reading fails (nil) for an unknown feature, a value of the wrong type (`(min-width: 1)`,
/// `(orientation: round)`) or a negative length or resolution (`(min-width: -1px)`, which WPT's
/// `sizes` cases require refused): the condition then holds a `<general-enclosed>`, unknown.
struct MediaFeatureTest: Sendable, Hashable {
    /// How the feature compares with an operand, the feature on the left: `(400px < width)` is
    /// read as `width > 400px`.
    enum Relation: Sendable, Hashable {
        case less, lessOrEqual, equal, greaterOrEqual, greater

        var flipped: Relation {
            switch self {
            case .less: .greater
            case .lessOrEqual: .greaterOrEqual
            case .equal: .equal
            case .greaterOrEqual: .lessOrEqual
            case .greater: .less
            }
        }

        func holds(_ lhs: Double, _ rhs: Double) -> Bool {
            switch self {
            case .less: lhs < rhs
            case .lessOrEqual: lhs <= rhs
            case .equal: lhs == rhs
            case .greaterOrEqual: lhs >= rhs
            case .greater: lhs > rhs
            }
        }
    }

    /// A value a query compares a range feature with.
    enum Operand: Sendable, Hashable {
        case amount(CSSNumericValue)
        /// `16/9`; a ratio written as one number has no denominator (it is over 1).
        case ratio(CSSNumericValue, CSSNumericValue?)
        /// The `infinite` resolution.
        case infinite
    }

    /// The feature, `relation`, the operand.
    struct Comparison: Sendable, Hashable {
        let relation: Relation
        let operand: Operand
    }

    enum Test: Sendable, Hashable {
        case boolean
        case keyword(String)
        /// Every comparison must hold: one for `min-`, `max-`, `:` and the one-sided ranges, two
        /// for `400px < width <= 800px`.
        case comparisons([Comparison])
    }

    let feature: MediaFeature
    let test: Test

    /// Reads the values inside a media feature's parentheses.
    init?(_ contents: ArraySlice<CSSComponentValue>) {
        let values = Array(Array(contents).trimmingWhitespace())
        guard !values.isEmpty else { return nil }
        if case .token(.ident(let name)) = values[0] {
            let rest = Array(Array(values.dropFirst()).trimmingWhitespace())
            if let parsed = Self.nameFirst(name, rest) {
                self = parsed
                return
            }
            return nil
        }
        guard let parsed = Self.valueFirst(values) else { return nil }
        self = parsed
    }

    private init(_ feature: MediaFeature, _ test: Test) {
        self.feature = feature
        self.test = test
    }

    /// Whether the test holds on `device`.
    func evaluate(on device: DeviceProfile) -> Bool {
        switch test {
        case .boolean:
            return feature.isTrueInBooleanContext(on: device)
        case .keyword(let keyword):
            return feature.value(on: device) == .keyword(keyword)
        case .comparisons(let comparisons):
            guard case .number(let value) = feature.value(on: device) else { return false }
            return comparisons.allSatisfy { comparison in
                guard let operand = Self.resolve(comparison.operand, on: device) else { return false }
                return comparison.relation.holds(value, operand)
            }
        }
    }

    /// The operand as a number, or nil for the degenerate ratio `0/0`, which no value equals,
    /// exceeds or falls short of.
    private static func resolve(_ operand: Operand, on device: DeviceProfile) -> Double? {
        switch operand {
        case .amount(let value):
            let resolved = value.resolved(on: device)
            return value.isMathFunction ? max(resolved, 0) : resolved
        case .ratio(let numerator, let denominator):
            let top = max(numerator.resolved(on: device), 0)
            let bottom = denominator.map { max($0.resolved(on: device), 0) } ?? 1
            return top == 0 && bottom == 0 ? nil : top / bottom
        case .infinite:
            return .infinity
        }
    }

    // MARK: Reading

    /// `(name)`, `(name: value)`, `(min-name: value)` or `(name < value)`.
    private static func nameFirst(_ written: String, _ rest: [CSSComponentValue]) -> MediaFeatureTest? {
        let name = written.lowercased()
        if let feature = MediaFeature(named: name) {
            if rest.isEmpty {
                return MediaFeatureTest(feature, .boolean)
            }
            if rest[0] == .token(.colon) {
                let value = Array(rest.dropFirst())
                if case .keyword(let keywords) = feature.valueType {
                    guard value.trimmingWhitespace().count == 1, case .token(.ident(let keyword)) = value.trimmingWhitespace().first,
                          keywords.contains(keyword.lowercased()) else { return nil }
                    return MediaFeatureTest(feature, .keyword(keyword.lowercased()))
                }
                guard let operand = operand(value, for: feature) else { return nil }
                return MediaFeatureTest(feature, .comparisons([Comparison(relation: .equal, operand: operand)]))
            }
            guard feature.valueType.isRange, let (relation, length) = relation(at: 0, in: rest),
                  let operand = operand(Array(rest.dropFirst(length)), for: feature) else { return nil }
            return MediaFeatureTest(feature, .comparisons([Comparison(relation: relation, operand: operand)]))
        }
        for (prefix, relation) in [("min-", Relation.greaterOrEqual), ("max-", .lessOrEqual)] {
            let unprefixed: String
            if name.hasPrefix(prefix) {
                unprefixed = String(name.dropFirst(prefix.count))
            } else if name.hasPrefix("-webkit-" + prefix) {
                unprefixed = "-webkit-" + name.dropFirst(("-webkit-" + prefix).count)
            } else {
                continue
            }
            guard let feature = MediaFeature(named: unprefixed), feature.valueType.isRange,
                  rest.first == .token(.colon), let operand = operand(Array(rest.dropFirst()), for: feature) else { return nil }
            return MediaFeatureTest(feature, .comparisons([Comparison(relation: relation, operand: operand)]))
        }
        return nil
    }

    /// `(value < name)` or `(value < name < value)`, both relations pointing the same way.
    private static func valueFirst(_ values: [CSSComponentValue]) -> MediaFeatureTest? {
        guard let split = values.firstIndex(where: { relation(at: 0, in: [$0]) != nil }),
              let (firstRelation, firstLength) = relation(at: split, in: values) else { return nil }
        var rest = Array(Array(values.dropFirst(split + firstLength)).trimmingWhitespace())
        guard case .token(.ident(let name)) = rest.first, let feature = MediaFeature(named: name),
              feature.valueType.isRange, let first = operand(Array(values[..<split]), for: feature) else { return nil }
        var comparisons = [Comparison(relation: firstRelation.flipped, operand: first)]
        rest = Array(Array(rest.dropFirst()).trimmingWhitespace())
        if !rest.isEmpty {
            guard let (secondRelation, secondLength) = relation(at: 0, in: rest),
                  [firstRelation, secondRelation].allSatisfy({ [.less, .lessOrEqual].contains($0) })
                    || [firstRelation, secondRelation].allSatisfy({ [.greater, .greaterOrEqual].contains($0) }),
                  let second = operand(Array(rest.dropFirst(secondLength)), for: feature) else { return nil }
            comparisons.append(Comparison(relation: secondRelation, operand: second))
        }
        return MediaFeatureTest(feature, .comparisons(comparisons))
    }

    /// The relation written at `index` (`<`, `<=`, `>`, `>=`, `=`; `<=` with nothing between
    /// its two signs) and how many component values it takes.
    private static func relation(at index: Int, in values: [CSSComponentValue]) -> (Relation, Int)? {
        guard index < values.count, case .token(.delim(let sign)) = values[index] else { return nil }
        let followedByEquals = index + 1 < values.count && values[index + 1] == .token(.delim("="))
        switch sign {
        case "=": return (.equal, 1)
        case "<": return followedByEquals ? (.lessOrEqual, 2) : (.less, 1)
        case ">": return followedByEquals ? (.greaterOrEqual, 2) : (.greater, 1)
        default: return nil
        }
    }

    /// The operand a range feature is compared with, written as `values`, if it has the feature's type.
    private static func operand(_ values: [CSSComponentValue], for feature: MediaFeature) -> Operand? {
        let values = Array(values).filter { !$0.isWhitespace }
        switch feature.valueType {
        case .ratio:
            guard let numerator = number(values.first) else { return nil }
            if values.count == 1 { return .ratio(numerator, nil) }
            guard values.count == 3, values[1] == .token(.delim("/")), let denominator = number(values[2]) else { return nil }
            return .ratio(numerator, denominator)
        case .resolution:
            guard values.count == 1 else { return nil }
            if case .token(.ident(let word)) = values[0], word.lowercased() == "infinite" { return .infinite }
            return amount(values[0], category: .resolution)
        case .length:
            guard values.count == 1 else { return nil }
            if case .token(.number(let number)) = values[0], number.value == 0, let zero = CSSNumericValue(values[0]) {
                return .amount(zero)
            }
            return amount(values[0], category: .length)
        case .integer:
            guard values.count == 1 else { return nil }
            if case .token(.number(let number)) = values[0], !number.isInteger { return nil }
            return amount(values[0], category: .number)
        case .number:
            guard values.count == 1 else { return nil }
            return amount(values[0], category: .number)
        case .keyword:
            return nil
        }
    }

    /// A literal or math function of the category; a negative literal is refused.
    private static func amount(_ value: CSSComponentValue, category: CSSNumericValue.Category) -> Operand? {
        guard let amount = CSSNumericValue(value), amount.category == category else { return nil }
        switch value {
        case .token(.number(let number)), .token(.dimension(let number, _)):
            guard number.value >= 0 else { return nil }
        default:
            break
        }
        return .amount(amount)
    }

    private static func number(_ value: CSSComponentValue?) -> CSSNumericValue? {
        guard let value, case .amount(let number) = amount(value, category: .number) else { return nil }
        return number
    }
}
