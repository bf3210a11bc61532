/// One image candidate of a `srcset`: where its URL is, and whether the HTML Standard keeps it.
struct SrcsetCandidate: Equatable, Sendable {
    /// Scalar range of the URL token inside the parsed text.
    let urlRange: Range<Int>
    /// False when its descriptors make it invalid; browsers drop such a candidate.
    let isValid: Bool
}

/// The HTML Standard's "parse a srcset attribute" algorithm, keeping positions instead of strings
/// so that only URL tokens are replaced and descriptors, commas and whitespace stay as written.
enum SrcsetParser {
    private static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        s == " " || s == "\t" || s == "\n" || s == "\u{0C}" || s == "\r"
    }

    static func parse(_ text: [Unicode.Scalar]) -> [SrcsetCandidate] {
        var candidates: [SrcsetCandidate] = []
        var position = 0
        let count = text.count
        while true {
            // Splitting loop: skip whitespace and commas.
            while position < count, isWhitespace(text[position]) || text[position] == "," { position += 1 }
            if position >= count { return candidates }
            let urlStart = position
            while position < count, !isWhitespace(text[position]) { position += 1 }
            var urlEnd = position
            var descriptors: [[Unicode.Scalar]] = []
            if text[urlEnd - 1] == "," {
                // A URL that ends with commas ends the candidate; the commas are separators.
                while urlEnd > urlStart, text[urlEnd - 1] == "," { urlEnd -= 1 }
            } else {
                descriptors = tokenizeDescriptors(text, &position)
            }
            if urlEnd > urlStart {
                candidates.append(SrcsetCandidate(urlRange: urlStart..<urlEnd, isValid: descriptorsAreValid(descriptors)))
            }
        }
    }

    /// The "descriptor tokenizer": runs to the comma that ends the candidate (not one inside parentheses).
    private static func tokenizeDescriptors(_ text: [Unicode.Scalar], _ position: inout Int) -> [[Unicode.Scalar]] {
        enum State { case inDescriptor, inParens, afterDescriptor }
        var state = State.inDescriptor
        var current: [Unicode.Scalar] = []
        var descriptors: [[Unicode.Scalar]] = []
        let count = text.count
        while position < count + 1 {
            let c: Unicode.Scalar? = position < count ? text[position] : nil
            switch state {
            case .inDescriptor:
                guard let c else {
                    if !current.isEmpty { descriptors.append(current) }
                    return descriptors
                }
                if isWhitespace(c) {
                    if !current.isEmpty { descriptors.append(current); current = [] }
                    state = .afterDescriptor
                } else if c == "," {
                    position += 1
                    if !current.isEmpty { descriptors.append(current) }
                    return descriptors
                } else if c == "(" {
                    current.append(c)
                    state = .inParens
                } else {
                    current.append(c)
                }
            case .inParens:
                guard let c else {
                    descriptors.append(current)
                    return descriptors
                }
                current.append(c)
                if c == ")" { state = .inDescriptor }
            case .afterDescriptor:
                guard let c else { return descriptors }
                if !isWhitespace(c) {
                    state = .inDescriptor
                    continue
                }
            }
            position += 1
        }
        return descriptors
    }

    /// Step 13 of the algorithm: at most one of each of w, x and h; w and h valid non-negative
    /// integers above zero; x a valid non-negative floating-point number; h only together with w;
    /// w and x not together; anything else invalidates the candidate.
    private static func descriptorsAreValid(_ descriptors: [[Unicode.Scalar]]) -> Bool {
        var width = false, density = false, height = false
        for descriptor in descriptors {
            guard let last = descriptor.last else { return false }
            let value = Array(descriptor.dropLast())
            switch last {
            case "w":
                guard !width, !density, isPositiveInteger(value) else { return false }
                width = true
            case "x":
                guard !width, !density, !height, isNonNegativeFloat(value) else { return false }
                density = true
            case "h":
                guard !height, !density, isPositiveInteger(value) else { return false }
                height = true
            default:
                return false
            }
        }
        return !(height && !width)
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { s >= "0" && s <= "9" }

    private static func isPositiveInteger(_ value: [Unicode.Scalar]) -> Bool {
        guard !value.isEmpty, value.allSatisfy(isDigit) else { return false }
        return value.contains { $0 != "0" }
    }

    /// A "valid floating-point number" (-?digits(.digits)?([eE][+-]?digits)? or -?.digits…) whose
    /// value, parsed by the standard's rules, is not less than zero. Negative zero is not: the
    /// rules round it to 0, so `-0x` (and `-0.0x`, `-1e-400x`) is a density of zero, as the
    /// web-platform-tests expect.
    private static func isNonNegativeFloat(_ value: [Unicode.Scalar]) -> Bool {
        var i = 0
        let n = value.count
        let negative = n > 0 && value[0] == "-"
        if negative { i += 1 }
        var integerDigits = 0
        while i < n, isDigit(value[i]) { i += 1; integerDigits += 1 }
        var fractionDigits = 0
        if i < n, value[i] == "." {
            i += 1
            while i < n, isDigit(value[i]) { i += 1; fractionDigits += 1 }
            if fractionDigits == 0 { return false }
        }
        if integerDigits == 0 && fractionDigits == 0 { return false }
        if i < n, value[i] == "e" || value[i] == "E" {
            i += 1
            if i < n, value[i] == "+" || value[i] == "-" { i += 1 }
            var exponentDigits = 0
            while i < n, isDigit(value[i]) { i += 1; exponentDigits += 1 }
            if exponentDigits == 0 { return false }
        }
        guard i == n else { return false }
        guard negative else { return true }
        // Only ASCII is left: the digits, '-', '.', 'e' and a sign. Double rounds a value too small
        // to tell from zero to -0.0, as the standard's rounding gives 0.
        var text = ""
        text.unicodeScalars.append(contentsOf: value)
        guard let number = Double(text) else { return false }
        return !(number < 0)
    }
}
