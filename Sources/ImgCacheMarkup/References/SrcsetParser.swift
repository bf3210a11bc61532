import ImgCacheSupport
/// One image candidate of a `srcset`: where its URL is, and whether the HTML Standard keeps it.
package struct SrcsetCandidate: Equatable, Sendable {
    /// Scalar range of the URL token inside the parsed text.
    package let urlRange: Range<Int>
    /// False when its descriptors make it invalid; browsers drop such a candidate.
    package let isValid: Bool
}

/// The HTML Standard's "parse a srcset attribute" algorithm, keeping positions instead of strings
/// so that only URL tokens are replaced and descriptors, commas and whitespace stay as written.
///
/// It reads bytes, one a character: every character the algorithm tells apart is ASCII, so a
/// srcset of plain ASCII (nearly all) is read straight off the page, with no decoded copy, and
/// decoded text is read with each non-ASCII scalar standing as one byte that is not ASCII.
package enum SrcsetParser {

    /// The candidates of decoded text; ranges are scalar offsets.
    package static func parse(_ text: [Unicode.Scalar]) -> [SrcsetCandidate] {
        let characters = text.map { $0.isASCII ? UInt8(truncatingIfNeeded: $0.value) : 0x80 }
        return characters.withUnsafeBufferPointer { parse($0) }
    }

    /// The candidates of text one byte a character (see the type's note); ranges are byte offsets.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> [SrcsetCandidate] {
        var candidates: [SrcsetCandidate] = []
        var position = 0
        let count = text.count
        while true {
            // Splitting loop: skip whitespace and commas.
            while position < count, text[position].isASCIIWhitespace || text[position] == UInt8(ascii: ",") { position += 1 }
            if position >= count { return candidates }
            let urlStart = position
            while position < count, !text[position].isASCIIWhitespace { position += 1 }
            var urlEnd = position
            var descriptors = DescriptorCheck()
            if text[urlEnd - 1] == UInt8(ascii: ",") {
                // A URL that ends with commas ends the candidate; the commas are separators.
                while urlEnd > urlStart, text[urlEnd - 1] == UInt8(ascii: ",") { urlEnd -= 1 }
            } else {
                tokenizeDescriptors(text, &position, into: &descriptors)
            }
            if urlEnd > urlStart {
                candidates.append(SrcsetCandidate(urlRange: urlStart..<urlEnd, isValid: descriptors.isValid))
            }
        }
    }

    /// The "descriptor tokenizer": runs to the comma that ends the candidate (not one inside
    /// parentheses). Each descriptor is a stretch of the text, checked as it ends.
    private static func tokenizeDescriptors(_ text: UnsafeBufferPointer<UInt8>, _ position: inout Int,
                                            into descriptors: inout DescriptorCheck) {
        enum State { case inDescriptor, inParens, afterDescriptor }
        var state = State.inDescriptor
        var currentStart = position
        var currentEnd = position
        func addCurrent() {
            if currentEnd > currentStart { descriptors.add(UnsafeBufferPointer(rebasing: text[currentStart..<currentEnd])) }
        }
        let count = text.count
        while position < count + 1 {
            let c: UInt8? = position < count ? text[position] : nil
            switch state {
            case .inDescriptor:
                guard let c else {
                    addCurrent()
                    return
                }
                if c.isASCIIWhitespace {
                    addCurrent()
                    state = .afterDescriptor
                } else if c == UInt8(ascii: ",") {
                    position += 1
                    addCurrent()
                    return
                } else {
                    if currentEnd == currentStart { currentStart = position }
                    currentEnd = position + 1
                    if c == UInt8(ascii: "(") { state = .inParens }
                }
            case .inParens:
                guard let c else {
                    addCurrent()
                    return
                }
                currentEnd = position + 1
                if c == UInt8(ascii: ")") { state = .inDescriptor }
            case .afterDescriptor:
                guard let c else { return }
                if !c.isASCIIWhitespace {
                    currentStart = position
                    currentEnd = position
                    state = .inDescriptor
                    continue
                }
            }
            position += 1
        }
    }

    /// Step 13 of the algorithm, one descriptor at a time: at most one of each of w, x and h; w
    /// and h valid non-negative integers above zero; x a valid non-negative floating-point
    /// number; h only together with w; w and x not together; anything else invalidates the candidate.
    private struct DescriptorCheck {
        private var width = false, density = false, height = false
        private var failed = false

        var isValid: Bool { !failed && !(height && !width) }

        mutating func add(_ descriptor: UnsafeBufferPointer<UInt8>) {
            guard !failed else { return }
            guard let last = descriptor.last else {
                failed = true
                return
            }
            let value = UnsafeBufferPointer(rebasing: descriptor.dropLast())
            switch last {
            case UInt8(ascii: "w"):
                guard !width, !density, SrcsetParser.isPositiveInteger(value) else { failed = true; return }
                width = true
            case UInt8(ascii: "x"):
                guard !width, !density, !height, SrcsetParser.isNonNegativeFloat(value) else { failed = true; return }
                density = true
            case UInt8(ascii: "h"):
                guard !height, !density, SrcsetParser.isPositiveInteger(value) else { failed = true; return }
                height = true
            default:
                failed = true
            }
        }
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    fileprivate static func isPositiveInteger(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !value.isEmpty, value.allSatisfy(isDigit) else { return false }
        return value.contains { $0 != UInt8(ascii: "0") }
    }

    /// A "valid floating-point number" (-?digits(.digits)?([eE][+-]?digits)? or -?.digits…) whose
    /// value, parsed by the standard's rules, is not less than zero. Negative zero is not: the
    /// rules round it to 0, so `-0x` (and `-0.0x`, `-1e-400x`) is a density of zero, as the
    /// web-platform-tests expect.
    fileprivate static func isNonNegativeFloat(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = value.count
        let negative = n > 0 && value[0] == UInt8(ascii: "-")
        if negative { i += 1 }
        var integerDigits = 0
        while i < n, isDigit(value[i]) { i += 1; integerDigits += 1 }
        var fractionDigits = 0
        if i < n, value[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, isDigit(value[i]) { i += 1; fractionDigits += 1 }
            if fractionDigits == 0 { return false }
        }
        if integerDigits == 0 && fractionDigits == 0 { return false }
        if i < n, value[i] == UInt8(ascii: "e") || value[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, value[i] == UInt8(ascii: "+") || value[i] == UInt8(ascii: "-") { i += 1 }
            var exponentDigits = 0
            while i < n, isDigit(value[i]) { i += 1; exponentDigits += 1 }
            if exponentDigits == 0 { return false }
        }
        guard i == n else { return false }
        guard negative else { return true }
        // Only ASCII is left: the digits, '-', '.', 'e' and a sign. Double rounds a value too small
        // to tell from zero to -0.0, as the standard's rounding gives 0.
        guard let number = Double(String(decoding: value, as: UTF8.self)) else { return false }
        return !(number < 0)
    }
}
