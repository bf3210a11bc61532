// RFC 3492 Punycode and a pragmatic UTS #46 ToASCII, as used by the WHATWG URL
// Standard's "domain to ASCII" (CheckHyphens=false, CheckBidi=true, CheckJoiners=true,
// UseSTD3ASCIIRules=false, Transitional_Processing=false, VerifyDnsLength=false).
internal import Foundation

/// RFC 3492 Punycode, the encoding behind `xn--` labels.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 0x80
    /// Implementations conventionally use 32-bit arithmetic; larger values are an overflow.
    private static let maxValue = Int(UInt32.max)

    private static func adapt(delta: Int, numPoints: Int, firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func threshold(_ k: Int, bias: Int) -> Int {
        if k <= bias { return tMin }
        if k >= bias + tMax { return tMax }
        return k - bias
    }

    private static func digitByte(_ digit: Int) -> UInt8 {
        // 0..25 -> a..z, 26..35 -> 0..9
        digit < 26 ? UInt8(0x61 + digit) : UInt8(0x30 + digit - 26)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x61...0x7A: return Int(byte - 0x61)
        case 0x41...0x5A: return Int(byte - 0x41)
        case 0x30...0x39: return Int(byte - 0x30) + 26
        default: return nil
        }
    }

    /// Encodes `input` (without the `xn--` prefix). Returns nil on arithmetic overflow.
    ///
    /// RFC 3492's loop rescans the whole label once per distinct code point, which is
    /// quadratic; the deltas it accumulates are counts of already-handled positions between
    /// two insertions, so they are taken from a Fenwick tree instead (O(n log n)).
    static func encode(_ input: [Unicode.Scalar]) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(input.count + 8)
        var handledPositions = FenwickTree(count: input.count)
        var pending: [(value: Int, position: Int)] = []
        for (position, scalar) in input.enumerated() {
            if scalar.value < 0x80 {
                output.append(UInt8(scalar.value))
                handledPositions.add(at: position)
            } else {
                pending.append((Int(scalar.value), position))
            }
        }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(0x2D) }
        pending.sort { $0.value != $1.value ? $0.value < $1.value : $0.position < $1.position }

        var n = initialN
        var delta = 0
        var bias = initialBias
        var roundStart = 0
        while roundStart < pending.count {
            let m = pending[roundStart].value
            var roundEnd = roundStart
            while roundEnd < pending.count && pending[roundEnd].value == m { roundEnd += 1 }

            delta += (m - n) * (handled + 1)
            guard delta <= maxValue else { return nil }
            n = m
            var previous = -1
            for index in roundStart..<roundEnd {
                let position = pending[index].position
                // Positions holding smaller code points between the previous insertion and this one.
                delta += handledPositions.count(in: (previous + 1)..<position)
                guard delta <= maxValue else { return nil }
                appendVariableLengthInteger(delta, bias: bias, to: &output)
                bias = adapt(delta: delta, numPoints: handled + 1, firstTime: handled == basicCount)
                delta = 0
                handled += 1
                previous = position
            }
            delta += handledPositions.count(in: (previous + 1)..<input.count) + 1
            guard delta <= maxValue else { return nil }
            n += 1
            for index in roundStart..<roundEnd {
                handledPositions.add(at: pending[index].position)
            }
            roundStart = roundEnd
        }
        return output
    }

    private static func appendVariableLengthInteger(_ value: Int, bias: Int, to output: inout [UInt8]) {
        var q = value
        var k = base
        while true {
            let t = threshold(k, bias: bias)
            if q < t { break }
            output.append(digitByte(t + (q - t) % (base - t)))
            q = (q - t) / (base - t)
            k += base
        }
        output.append(digitByte(q))
    }

    /// Counts marked positions in ranges, in O(log n) per operation.
    private struct FenwickTree {
        private var tree: [Int]

        init(count: Int) {
            tree = [Int](repeating: 0, count: count + 1)
        }

        mutating func add(at position: Int) {
            var index = position + 1
            while index < tree.count {
                tree[index] += 1
                index += index & -index
            }
        }

        /// The number of marked positions before `end`.
        private func prefixCount(_ end: Int) -> Int {
            var index = end
            var total = 0
            while index > 0 {
                total += tree[index]
                index -= index & -index
            }
            return total
        }

        func count(in range: Range<Int>) -> Int {
            range.isEmpty ? 0 : prefixCount(range.upperBound) - prefixCount(range.lowerBound)
        }
    }

    /// Decodes a Punycode string (without the `xn--` prefix). Returns nil if it is invalid.
    package static func decode(_ input: ArraySlice<UInt8>) -> [Unicode.Scalar]? {
        var output: [Unicode.Scalar] = []
        var position = input.startIndex
        if let delimiter = input.lastIndex(of: 0x2D), delimiter != input.startIndex {
            for byte in input[input.startIndex..<delimiter] {
                guard byte < 0x80 else { return nil }
                output.append(Unicode.Scalar(byte))
            }
            position = delimiter + 1
        }
        var n = initialN
        var i = 0
        var bias = initialBias
        while position < input.endIndex {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard position < input.endIndex, let digit = digitValue(input[position]) else { return nil }
                position += 1
                i += digit * w
                guard i <= maxValue else { return nil }
                let t = threshold(k, bias: bias)
                if digit < t { break }
                w *= base - t
                guard w <= maxValue else { return nil }
                k += base
            }
            let length = output.count + 1
            bias = adapt(delta: i - oldI, numPoints: length, firstTime: oldI == 0)
            n += i / length
            guard n <= maxValue else { return nil }
            i %= length
            guard n >= 0x80, let scalar = Unicode.Scalar(UInt32(n)) else { return nil }
            output.insert(scalar, at: i)
            i += 1
        }
        return output
    }
}

/// UTS #46 "Unicode IDNA Compatibility Processing", ToASCII, with the options the
/// URL Standard uses.
///
/// Pragmatic: instead of the UTS #46 mapping table, mapping is lower-casing plus NFKC
/// (close to the table's NFKC_Casefold basis) with the table's "ignored" code points
/// removed; disallowed code points are approximated from general categories; the
/// Bidi and ContextJ rules use approximate character classes.
enum IDNA {
    /// Runs ToASCII on `domain`. Returns nil where UTS #46 records an error.
    static func toASCII(_ domain: [Unicode.Scalar]) -> String? {
        let mapped = map(domain)
        var output: [UInt8] = []
        output.reserveCapacity(mapped.count + 8)
        var bidiDomain = false
        var labelStart = 0
        var index = 0
        while index <= mapped.count {
            if index < mapped.count && mapped[index] != "." {
                index += 1
                continue
            }
            let label = Array(mapped[labelStart..<index])
            if labelStart > 0 { output.append(0x2E) }
            guard let ascii = processLabel(label, bidiDomain: &bidiDomain) else { return nil }
            output.append(contentsOf: ascii)
            index += 1
            labelStart = index
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: - Mapping

    /// UTS #46 "ignored" code points: removed from the input before anything else.
    private static func isIgnored(_ value: UInt32) -> Bool {
        switch value {
        case 0x00AD, 0x034F, 0x180B...0x180D, 0x180F, 0x200B, 0x2060, 0x2064,
             0xFE00...0xFE0F, 0xFEFF, 0x1BCA0...0x1BCA3, 0xE0100...0xE01EF:
            return true
        default:
            return false
        }
    }

    /// Maps a domain roughly as the UTS #46 mapping table does, then NFC-normalises it.
    static func map(_ input: [Unicode.Scalar]) -> [Unicode.Scalar] {
        if input.allSatisfy({ $0.value < 0x80 }) {
            return input.map { $0.value >= 0x41 && $0.value <= 0x5A ? Unicode.Scalar($0.value + 0x20)! : $0 }
        }
        var view = String.UnicodeScalarView()
        for scalar in input where !isIgnored(scalar.value) {
            if scalar.value == 0x1E9E {
                // Capital sharp s maps to "ss", unlike its lowercase form.
                view.append("s")
                view.append("s")
            } else {
                view.append(scalar)
            }
        }
        // NFKC can produce upper-case letters (U+210C -> "H"), so repeat until stable.
        var normalized = String(view).lowercased().precomposedStringWithCompatibilityMapping
        for _ in 0..<3 {
            let next = normalized.lowercased().precomposedStringWithCompatibilityMapping
            // Compare scalars: String equality would treat canonically equivalent forms as equal.
            if next.unicodeScalars.elementsEqual(normalized.unicodeScalars) { break }
            normalized = next
        }
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(normalized.unicodeScalars.count)
        for scalar in normalized.unicodeScalars where !isIgnored(scalar.value) {
            // Ideographic full stop (and the halfwidth one, which NFKC turns into it) separates labels.
            output.append(scalar.value == 0x3002 ? "." : scalar)
        }
        return output
    }

    // MARK: - Labels

    /// Converts one mapped label to its ASCII form, validating it. Nil on error.
    private static func processLabel(_ label: [Unicode.Scalar], bidiDomain: inout Bool) -> [UInt8]? {
        let isASCII = label.allSatisfy { $0.value < 0x80 }
        let unicodeLabel: [Unicode.Scalar]
        if hasACEPrefix(label) {
            guard isASCII else { return nil }
            let bytes = label.dropFirst(4).map { UInt8($0.value) }
            guard let decoded = Punycode.decode(bytes[...]),
                  !decoded.isEmpty,
                  !decoded.allSatisfy({ $0.value < 0x80 }),
                  map(decoded) == decoded,
                  isValid(decoded)
            else { return nil }
            unicodeLabel = decoded
        } else {
            guard isValid(label) else { return nil }
            unicodeLabel = label
        }
        if containsRTL(unicodeLabel) { bidiDomain = true }
        if bidiDomain && !unicodeLabel.isEmpty && !satisfiesBidiRule(unicodeLabel) { return nil }
        if isASCII && !hasACEPrefix(label) {
            return label.map { UInt8($0.value) }
        }
        guard let encoded = Punycode.encode(unicodeLabel) else { return nil }
        return Array("xn--".utf8) + encoded
    }

    private static func hasACEPrefix(_ label: [Unicode.Scalar]) -> Bool {
        label.count >= 4 && label[0] == "x" && label[1] == "n" && label[2] == "-" && label[3] == "-"
    }

    /// The UTS #46 validity criteria (non-transitional, CheckHyphens=false, CheckJoiners=true).
    private static func isValid(_ label: [Unicode.Scalar]) -> Bool {
        guard let first = label.first else { return true }
        if hasACEPrefix(label) { return false }
        if isMark(first) { return false }
        for (index, scalar) in label.enumerated() {
            if scalar.value < 0x80 { continue }
            if isDisallowed(scalar) { return false }
            if scalar.value == 0x200C || scalar.value == 0x200D {
                guard joinerIsAllowed(in: label, at: index) else { return false }
            }
        }
        return true
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Approximates the UTS #46 "disallowed" status for non-ASCII code points that survive mapping.
    private static func isDisallowed(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value == 0x200C || value == 0x200D { return false }
        if (0xFFF9...0xFFFD).contains(value) { return true }
        let properties = scalar.properties
        if properties.isNoncharacterCodePoint { return true }
        switch properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned,
             .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return true
        default:
            return false
        }
    }

    // MARK: - ContextJ (RFC 5892 appendix A.1, A.2)

    private static func joinerIsAllowed(in label: [Unicode.Scalar], at index: Int) -> Bool {
        if index > 0 && label[index - 1].properties.canonicalCombiningClass.rawValue == 9 {
            return true
        }
        guard label[index].value == 0x200C else { return false }
        // ZWNJ: (L|D) T* ZWNJ T* (R|D)
        var before = index - 1
        while before >= 0 && joiningType(label[before]) == .transparent { before -= 1 }
        guard before >= 0, [.left, .dual].contains(joiningType(label[before])) else { return false }
        var after = index + 1
        while after < label.count && joiningType(label[after]) == .transparent { after += 1 }
        guard after < label.count, [.right, .dual].contains(joiningType(label[after])) else { return false }
        return true
    }

    private enum JoiningType { case dual, left, right, transparent, none }

    /// Approximate Joining_Type: letters of the joining scripts are dual-joining except a
    /// list of right-joining Arabic letters; marks and format characters are transparent.
    private static func joiningType(_ scalar: Unicode.Scalar) -> JoiningType {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return .transparent
        default: break
        }
        switch value {
        case 0x0622...0x0625, 0x0627, 0x0629, 0x062F...0x0632, 0x0648, 0x0671...0x0673,
             0x0675...0x0677, 0x0688...0x0699, 0x06C0, 0x06C3...0x06CB, 0x06CD, 0x06CF,
             0x06D2, 0x06D3, 0x06D5, 0x06EE, 0x06EF:
            return .right
        case 0x0620...0x064A, 0x066E...0x06D3, 0x06FA...0x06FF, 0x0710...0x074F, 0x0750...0x077F,
             0x07CA...0x07EA, 0x0860...0x086A, 0x08A0...0x08C9, 0x1820...0x1878, 0xA840...0xA871:
            return scalar.properties.isAlphabetic ? .dual : .none
        default:
            return .none
        }
    }

    // MARK: - Bidi rule (RFC 5893 section 2)

    private enum BidiClass { case l, r, al, an, en, es, cs, et, on, bn, nsm, other }

    /// Approximate Bidi_Class from code point ranges and general categories.
    private static func bidiClass(_ scalar: Unicode.Scalar) -> BidiClass {
        let value = scalar.value
        if value < 0x80 {
            switch value {
            case 0x30...0x39: return .en
            case 0x2B, 0x2D: return .es
            case 0x2C, 0x2E, 0x2F, 0x3A: return .cs
            case 0x23...0x25: return .et
            case 0x41...0x5A, 0x61...0x7A: return .l
            case 0x09...0x0D, 0x1C...0x20: return .other
            case 0x00...0x08, 0x0E...0x1B, 0x7F: return .bn
            default: return .on
            }
        }
        let category = scalar.properties.generalCategory
        switch category {
        case .nonspacingMark, .enclosingMark: return .nsm
        case .format: return value == 0x200E ? .l : (value == 0x200F ? .r : .bn)
        default: break
        }
        switch value {
        case 0x0600...0x0605, 0x0660...0x0669, 0x066B, 0x066C, 0x06DD, 0x08E2, 0x10D30...0x10D39:
            return .an
        case 0x06F0...0x06F9:
            return .en
        case 0x0590...0x05FF, 0x07C0...0x085F, 0xFB1D...0xFB4F, 0x10800...0x10CFF, 0x10E80...0x10FFF,
             0x1E800...0x1EC6F, 0x1ECC0...0x1ECFF, 0x1ED50...0x1EDFF, 0x1EF00...0x1EFFF:
            return .r
        case 0x0600...0x07BF, 0x0860...0x08FF, 0xFB50...0xFDFF, 0xFE70...0xFEFF, 0x10D00...0x10D3F,
             0x10EC0...0x10EFF, 0x10F30...0x10F6F, 0x1EC70...0x1ECBF, 0x1ED00...0x1ED4F, 0x1EE00...0x1EEFF:
            return .al
        default:
            break
        }
        switch category {
        case .currencySymbol: return .et
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: return .other
        case .mathSymbol, .otherSymbol, .modifierSymbol, .connectorPunctuation, .dashPunctuation,
             .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return .on
        default:
            return .l
        }
    }

    private static func containsRTL(_ label: [Unicode.Scalar]) -> Bool {
        label.contains { scalar in
            scalar.value >= 0x0590 && [.r, .al, .an].contains(bidiClass(scalar))
        }
    }

    private static func satisfiesBidiRule(_ label: [Unicode.Scalar]) -> Bool {
        let classes = label.map(bidiClass)
        guard let first = classes.first else { return true }
        let last = classes.last(where: { $0 != .nsm }) ?? first
        switch first {
        case .r, .al:
            let allowed: Set<BidiClass> = [.r, .al, .an, .en, .es, .cs, .et, .on, .bn, .nsm]
            guard classes.allSatisfy(allowed.contains) else { return false }
            guard [.r, .al, .en, .an].contains(last) else { return false }
            return !(classes.contains(.en) && classes.contains(.an))
        case .l:
            let allowed: Set<BidiClass> = [.l, .en, .es, .cs, .et, .on, .bn, .nsm]
            guard classes.allSatisfy(allowed.contains) else { return false }
            return last == .l || last == .en
        default:
            return false
        }
    }
}
