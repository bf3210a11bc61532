import ImgCacheURLs
/// HTML character references as the HTML tokenizer resolves them inside an attribute value
/// ("character reference state" and its sub-states in the HTML Standard).
///
/// Works on already-decoded scalars: references are pure ASCII, so resolving after decoding is the
/// same as resolving while decoding, and every encoding shares one implementation.
enum CharacterReferences {
    /// Resolves references in `scalars`, whose `offsets[i]` is the raw offset of `scalars[i]`
    /// (`offsets` has one extra trailing entry, the raw length). A reference becomes its
    /// scalar(s), each given the raw offset of its "&".
    static func resolveInAttributeValue(scalars: [Unicode.Scalar], offsets: [Int]) -> (scalars: [Unicode.Scalar], offsets: [Int]) {
        var outScalars: [Unicode.Scalar] = []
        var outOffsets: [Int] = []
        outScalars.reserveCapacity(scalars.count)
        outOffsets.reserveCapacity(offsets.count)
        let count = scalars.count
        var i = 0
        while i < count {
            guard scalars[i] == "&" else {
                // The text up to the next "&", copied as a run: appended a scalar at a time, long
                // `style` values with a few references cost more than finding the references.
                var runEnd = i + 1
                while runEnd < count, scalars[runEnd] != "&" { runEnd += 1 }
                outScalars.append(contentsOf: scalars[i..<runEnd])
                outOffsets.append(contentsOf: offsets[i..<runEnd])
                i = runEnd
                continue
            }
            let ampersandOffset = offsets[i]
            if let (replacement, end) = numericReference(at: i, in: scalars) ?? namedReference(at: i, in: scalars) {
                for scalar in replacement {
                    outScalars.append(scalar)
                    outOffsets.append(ampersandOffset)
                }
                i = end
            } else {
                // Not a reference: the "&" and everything after it are literal text.
                outScalars.append("&")
                outOffsets.append(ampersandOffset)
                i += 1
            }
        }
        outOffsets.append(offsets[count])
        return (outScalars, outOffsets)
    }

    /// "&#" digits [";"] or "&#x" hex digits [";"]; nil when no digit follows, which leaves the
    /// text literal exactly as the tokenizer's "absence of digits" error does.
    private static func numericReference(at ampersand: Int, in scalars: [Unicode.Scalar]) -> ([Unicode.Scalar], Int)? {
        let count = scalars.count
        guard ampersand + 1 < count, scalars[ampersand + 1] == "#" else { return nil }
        var j = ampersand + 2
        var radix: UInt32 = 10
        if j < count, scalars[j] == "x" || scalars[j] == "X" {
            radix = 16
            j += 1
        }
        let digitsStart = j
        var value: UInt32 = 0
        while j < count, let digit = digitValue(scalars[j], radix: radix) {
            // Saturate: anything past U+10FFFF is replaced anyway, and this cannot overflow.
            value = min(value * radix + digit, 0x110000)
            j += 1
        }
        guard j > digitsStart else { return nil }
        if j < count, scalars[j] == ";" { j += 1 }
        return ([numericReplacement(value)], j)
    }

    /// The longest named reference after "&"; nil when none matches, or when the attribute-value
    /// rule keeps it literal: a match without ";" followed by "=" or an ASCII alphanumeric (so the
    /// query "?a=1&copy=2" keeps its "&copy").
    private static func namedReference(at ampersand: Int, in scalars: [Unicode.Scalar]) -> ([Unicode.Scalar], Int)? {
        let count = scalars.count
        let nameStart = ampersand + 1
        var runEnd = nameStart
        while runEnd < count, isASCIIAlphanumeric(scalars[runEnd]) { runEnd += 1 }
        guard runEnd > nameStart else { return nil }
        // "&amp;" is nearly every reference in real attribute values (the `&` of a query): found
        // without building the Strings the table is keyed by.
        if runEnd - nameStart == 3, runEnd < count, scalars[nameStart] == "a", scalars[nameStart + 1] == "m",
           scalars[nameStart + 2] == "p", scalars[runEnd] == ";" {
            return (["&"], runEnd + 1)
        }
        // The name's scalars are ASCII letters and digits: written as bytes into the string (a
        // scalar view appended from a slice was generic code, costly on pages whose `style`
        // attributes quote with `&quot;`, as browsers serialise font names).
        func name(_ end: Int, semicolon: Bool = false) -> String {
            String(unsafeUninitializedCapacity: end - nameStart + 1) { bytes in
                var written = 0
                for index in nameStart..<end {
                    bytes[written] = UInt8(truncatingIfNeeded: scalars[index].value)
                    written += 1
                }
                if semicolon {
                    bytes[written] = UInt8(ascii: ";")
                    written += 1
                }
                return written
            }
        }
        // Only the full alphanumeric run can be followed by ";"; every shorter match is legacy.
        if runEnd < count, scalars[runEnd] == ";", runEnd - nameStart < NamedCharacterReferences.maxNameLength,
           let value = NamedCharacterReferences.lookup(name(runEnd, semicolon: true)) {
            return (value, runEnd + 1)
        }
        var end = min(runEnd, nameStart + NamedCharacterReferences.maxLegacyNameLength)
        while end > nameStart {
            // Most "&" in real values start a query parameter (`&utm_source=`): its prefixes are
            // ruled out on a packed key, without building a String for each.
            if NamedCharacterReferences.legacyNames.contains(NamedCharacterReferences.packed(scalars[nameStart..<end])),
               let value = NamedCharacterReferences.lookup(name(end)) {
                if end < count, scalars[end] == "=" || isASCIIAlphanumeric(scalars[end]) { return nil }
                return (value, end)
            }
            end -= 1
        }
        return nil
    }

    /// The "numeric character reference end state" replacements.
    static func numericReplacement(_ value: UInt32) -> Unicode.Scalar {
        switch value {
        case 0, 0xD800...0xDFFF, 0x110000...:
            return "\u{FFFD}"
        case 0x80...0x9F:
            if let mapped = c1Replacements[value], let scalar = Unicode.Scalar(mapped) { return scalar }
            return Unicode.Scalar(value) ?? "\u{FFFD}"
        default:
            return Unicode.Scalar(value) ?? "\u{FFFD}"
        }
    }

    /// References to C1 controls mean what windows-1252 puts at those bytes, as in browsers.
    private static let c1Replacements: [UInt32: UInt32] = [
        0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
        0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152, 0x8E: 0x017D, 0x91: 0x2018,
        0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC,
        0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A, 0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
    ]

    private static func digitValue(_ scalar: Unicode.Scalar, radix: UInt32) -> UInt32? {
        let v = scalar.value
        switch v {
        case 0x30...0x39: return v - 0x30
        case 0x41...0x46 where radix == 16: return v - 0x41 + 10
        case 0x61...0x66 where radix == 16: return v - 0x61 + 10
        default: return nil
        }
    }

    static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: false
        }
    }
}

/// The HTML Standard's table of named character references (all 2,231 entries).
enum NamedCharacterReferences {
    /// The scalars a name (including its ";" if it has one) stands for.
    package static func lookup(_ name: String) -> [Unicode.Scalar]? {
        table[name]
    }

    /// Longest name, ";" included ("&CounterClockwiseContourIntegral;").
    static let maxNameLength = 32
    /// Longest name usable without ";" (e.g. "frac12"), the only kind matched on a prefix.
    static let maxLegacyNameLength = 6

    /// The names usable without ";", each as ``packed(_:)`` gives it.
    static let legacyNames: Set<UInt64> = Set(table.keys.filter { !$0.hasSuffix(";") }.map { packed(Array($0.unicodeScalars)[...]) })

    /// Up to eight ASCII scalars, one per byte, as one number; distinct for distinct names of
    /// letters and digits (no scalar is 0). Longer or non-ASCII input gives `UInt64.max`, which
    /// no name packs to.
    static func packed(_ scalars: ArraySlice<Unicode.Scalar>) -> UInt64 {
        guard scalars.count <= 8 else { return .max }
        var key: UInt64 = 0
        for scalar in scalars {
            guard scalar.isASCII, scalar.value != 0 else { return .max }
            key = key << 8 | UInt64(scalar.value)
        }
        return key
    }

    /// Read from ``packedTable`` as bytes at the first lookup: split as a String, Character by
    /// Character, it cost more than rewriting a typical page.
    static let table: [String: [Unicode.Scalar]] = {
        var table: [String: [Unicode.Scalar]] = [:]
        table.reserveCapacity(entryCount)
        packedTable.withUTF8Bytes { bytes in
            var i = 0
            func isSeparator(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") }
            while i < bytes.count {
                while i < bytes.count, isSeparator(bytes[i]) { i += 1 }
                let nameStart = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "="), !isSeparator(bytes[i]) { i += 1 }
                guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { continue }
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<i]), as: UTF8.self)
                i += 1
                // HEX[.HEX]…, up to the next separator.
                var scalars: [Unicode.Scalar] = []
                var value: UInt32 = 0
                var digits = 0
                while true {
                    let atEnd = i >= bytes.count || isSeparator(bytes[i])
                    if atEnd || bytes[i] == UInt8(ascii: ".") {
                        if digits > 0, let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
                        value = 0
                        digits = 0
                        if atEnd { break }
                    } else if let digit = PercentEncoding.hexValue(bytes[i]) {
                        value = value &* 16 &+ UInt32(digit)
                        digits += 1
                    }
                    i += 1
                }
                table[name] = scalars
            }
        }
        return table
    }()
}
