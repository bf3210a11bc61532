import ImgCacheSupport
/// One image candidate a browser keeps from a `srcset`: its URL as written and what its
/// descriptors say, which is what choosing among candidates needs.
///
/// Read with `parse(_:)`, per the HTML Standard's "parse a srcset attribute"
/// (https://html.spec.whatwg.org/multipage/images.html#parsing-a-srcset-attribute).
struct ImageCandidate: Equatable, Sendable {
    /// What a candidate's descriptors say: a pixel density, or a width (and maybe a height) that
    /// `sizes` turns into a density.
    enum Descriptor: Equatable, Sendable {
        /// An `x` descriptor, or none (which the standard reads as `1x`).
        case density(Double)
        /// A `w` descriptor, with the `h` written beside it if any (which no browser uses yet).
        case width(Int, height: Int?)
    }

    /// The URL as written, not resolved.
    var url: String
    /// Where the URL is in the attribute, in Unicode scalars.
    package var urlRange: Range<Int>
    var descriptor: Descriptor

    /// The valid candidates of a `srcset`, in the order written. Duplicates are kept: the standard
    /// removes them only once widths are densities, in the element's source set.
    static func parse(_ srcset: String) -> [ImageCandidate] {
        parse(Array(srcset.unicodeScalars))
    }

    /// The valid candidates of a `srcset` given as scalars (how the rewriter holds attributes).
    ///
    /// ``SrcsetParser`` finds the candidates and validates their descriptors; this only reads the
    /// descriptors of those it keeps. A valid candidate's descriptors are plain tokens (digits,
    /// `.`, `e`, signs and one letter), never parentheses or commas, so they run from the URL's
    /// end to the next comma, separated by whitespace.
    static func parse(_ scalars: [Unicode.Scalar]) -> [ImageCandidate] {
        SrcsetParser.parse(scalars).compactMap { candidate in
            guard candidate.isValid, let descriptor = descriptor(after: candidate.urlRange.upperBound, in: scalars) else { return nil }
            return ImageCandidate(url: String(String.UnicodeScalarView(scalars[candidate.urlRange])),
                                  urlRange: candidate.urlRange, descriptor: descriptor)
        }
    }

    /// The descriptor of a candidate ``SrcsetParser`` found valid, whose URL ends at `position`.
    /// Nil for a value browsers refuse though its syntax is valid: a width or height beyond a
    /// 32-bit integer, or a density beyond a double (Blink and WebKit parse them into those types
    /// and drop the candidate when parsing fails).
    private static func descriptor(after position: Int, in scalars: [Unicode.Scalar]) -> Descriptor? {
        var position = position
        // A URL that ended with commas has no descriptors: the commas end the candidate.
        if position < scalars.count, scalars[position] == "," { return .density(1) }
        var density: Double?, width: Int?, height: Int?
        while true {
            while position < scalars.count, scalars[position].isASCIIWhitespace { position += 1 }
            guard position < scalars.count, scalars[position] != "," else { break }
            let start = position
            while position < scalars.count, !scalars[position].isASCIIWhitespace, scalars[position] != "," { position += 1 }
            let value = String(String.UnicodeScalarView(scalars[start..<(position - 1)]))
            switch scalars[position - 1] {
            case "x":
                // Validated as a non-negative floating-point number; one too small for a double
                // reads as zero, and -0 is zero.
                let number = Double(value) ?? 0
                guard number.isFinite else { return nil }
                density = number == 0 ? 0 : number
            case "w":
                guard let number = Int32(value) else { return nil }
                width = Int(number)
            default:  // "h", the only other letter a valid candidate has
                guard let number = Int32(value) else { return nil }
                height = Int(number)
            }
        }
        if let width { return .width(width, height: height) }
        return .density(density ?? 1)
    }
}
