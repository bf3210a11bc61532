/// A number, length or resolution as written in `sizes` or a media feature: a literal (`2`, `50vw`,
/// `2dppx`) or a math function of CSS Values 4 (`calc()`, `min()`, `max()`, `clamp()`), typed when
/// read and resolved on a device, since viewport units make its value a device's.
///
/// Percentages are refused: neither a source size nor a media feature has anything to take one of.
struct CSSNumericValue: Sendable, Hashable {
    enum Category: Sendable, Hashable {
        case number, length, resolution
    }

    let category: Category
    /// A math function rather than a literal: its value is clamped to a feature's range instead of
    /// being refused out of it (CSS Values 4, "Range Checking").
    let isMathFunction: Bool
    private let expression: Expression

    private indirect enum Expression: Sendable, Hashable {
        case number(Double)
        case dimension(Double, CSSUnit)
        case sum([Expression])
        case negation(Expression)
        case product([Expression])
        case reciprocal(Expression)
        case minimum([Expression])
        case maximum([Expression])
        case clamp(Expression, Expression, Expression)
    }

    /// Reads one component value; nil unless it is a number, a dimension of a length or resolution
    /// unit, or a well-typed math function of them.
    init?(_ value: CSSComponentValue) {
        guard let (expression, category) = Self.read(value, nested: false) else { return nil }
        self.expression = expression
        self.category = category
        if case .function = value { isMathFunction = true } else { isMathFunction = false }
    }

    /// The value in CSS pixels (lengths), dots per CSS pixel (resolutions) or as is (numbers).
    /// As at the top of a CSS calculation, NaN is 0 and infinities are the largest finite values.
    func resolved(on device: DeviceProfile) -> Double {
        let value = Self.evaluate(expression, on: device)
        if value.isNaN { return 0 }
        return min(max(value, -Double.greatestFiniteMagnitude), Double.greatestFiniteMagnitude)
    }

    // MARK: Reading

    private static let mathFunctions: Set<String> = ["calc", "-webkit-calc", "min", "max", "clamp"]

    private static func read(_ value: CSSComponentValue, nested: Bool) -> (Expression, Category)? {
        switch value {
        case .token(.number(let number)):
            return (.number(number.value), .number)
        case .token(.dimension(let number, let unitName)):
            guard let unit = CSSUnit(unitName) else { return nil }
            return (.dimension(number.value, unit), unit.category == .length ? .length : .resolution)
        case .token(.ident(let name)) where nested:
            switch name.lowercased() {
            case "e": return (.number(2.718281828459045), .number)
            case "pi": return (.number(Double.pi), .number)
            case "infinity": return (.number(.infinity), .number)
            case "-infinity": return (.number(-.infinity), .number)
            case "nan": return (.number(.nan), .number)
            default: return nil
            }
        case .block(.parenthesis, let values) where nested:
            return readSum(values)
        case .function(let name, let arguments):
            let name = name.lowercased()
            guard mathFunctions.contains(name) else { return nil }
            let lists = arguments.split(separator: .token(.comma), omittingEmptySubsequences: false)
            var terms: [Expression] = []
            var category: Category?
            for list in lists {
                guard let (term, termCategory) = readSum(Array(list)),
                      category == nil || category == termCategory else { return nil }
                terms.append(term)
                category = termCategory
            }
            guard let category else { return nil }
            switch (name, terms.count) {
            case ("calc", 1), ("-webkit-calc", 1): return (terms[0], category)
            case ("min", _): return (.minimum(terms), category)
            case ("max", _): return (.maximum(terms), category)
            case ("clamp", 3): return (.clamp(terms[0], terms[1], terms[2]), category)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `<calc-sum>`: products joined by `+` and `-`, which must have whitespace on both sides.
    private static func readSum(_ values: [CSSComponentValue]) -> (Expression, Category)? {
        let values = Array(values.trimmingWhitespace())
        var terms: [Expression] = []
        var category: Category?
        var start = 0
        var negateNext = false
        var index = 0
        func finishTerm(upTo end: Int) -> Bool {
            guard let (term, termCategory) = readProduct(Array(values[start..<end])),
                  category == nil || category == termCategory else { return false }
            terms.append(negateNext ? .negation(term) : term)
            category = termCategory
            return true
        }
        while index < values.count {
            if case .token(.delim(let operation)) = values[index], operation == "+" || operation == "-" {
                guard index > 0, values[index - 1].isWhitespace,
                      index + 1 < values.count, values[index + 1].isWhitespace,
                      finishTerm(upTo: index) else { return nil }
                negateNext = operation == "-"
                start = index + 1
            }
            index += 1
        }
        guard finishTerm(upTo: values.count), let category else { return nil }
        return (terms.count == 1 ? terms[0] : .sum(terms), category)
    }

    /// `<calc-product>`: values joined by `*` and `/`; at most one factor has a unit, and no divisor.
    private static func readProduct(_ values: [CSSComponentValue]) -> (Expression, Category)? {
        var factors: [Expression] = []
        var category = Category.number
        var divideNext = false
        var expectsValue = true
        for value in values where !value.isWhitespace {
            if case .token(.delim(let operation)) = value, operation == "*" || operation == "/" {
                guard !expectsValue else { return nil }
                divideNext = operation == "/"
                expectsValue = true
                continue
            }
            guard expectsValue, let (factor, factorCategory) = read(value, nested: true) else { return nil }
            if factorCategory != .number {
                guard category == .number, !divideNext else { return nil }
                category = factorCategory
            }
            factors.append(divideNext ? .reciprocal(factor) : factor)
            expectsValue = false
        }
        guard !expectsValue else { return nil }
        return (factors.count == 1 ? factors[0] : .product(factors), category)
    }

    // MARK: Evaluating

    private static func evaluate(_ expression: Expression, on device: DeviceProfile) -> Double {
        switch expression {
        case .number(let value):
            return value
        case .dimension(let value, let unit):
            return unit.canonical(value, on: device)
        case .sum(let terms):
            return terms.reduce(0) { $0 + evaluate($1, on: device) }
        case .negation(let term):
            return -evaluate(term, on: device)
        case .product(let factors):
            // A divisor divides rather than multiplying by its reciprocal, which would round twice.
            return factors.reduce(1) { product, factor in
                if case .reciprocal(let divisor) = factor { return product / evaluate(divisor, on: device) }
                return product * evaluate(factor, on: device)
            }
        case .reciprocal(let divisor):
            return 1 / evaluate(divisor, on: device)
        case .minimum(let terms):
            return terms.map { evaluate($0, on: device) }.reduce(.infinity) { $0.isNaN || $1.isNaN ? .nan : min($0, $1) }
        case .maximum(let terms):
            return terms.map { evaluate($0, on: device) }.reduce(-.infinity) { $0.isNaN || $1.isNaN ? .nan : max($0, $1) }
        case .clamp(let lower, let value, let upper):
            let lower = evaluate(lower, on: device), value = evaluate(value, on: device), upper = evaluate(upper, on: device)
            if lower.isNaN || value.isNaN || upper.isNaN { return .nan }
            return max(lower, min(value, upper))
        }
    }
}
