// The percent-encode sets and percent-decoding of the WHATWG URL Standard
// (https://url.spec.whatwg.org/#percent-encoded-bytes).

/// A set of bytes that must be percent-encoded when written into a URL component.
///
/// Every set includes the C0 controls and everything above U+007E, so only the
/// ASCII range needs to be stored; it is kept as a 128-bit mask.
struct PercentEncodeSet: Sendable {
    private let low: UInt64
    private let high: UInt64

    private init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Whether `byte` (or the code point with that value) must be percent-encoded.
    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
        if byte < 128 { return high & (1 << UInt64(byte - 64)) != 0 }
        return true
    }

    private func adding(_ characters: String) -> PercentEncodeSet {
        var low = self.low
        var high = self.high
        for byte in characters.utf8 {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        return PercentEncodeSet(low: low, high: high)
    }

    /// C0 controls and all code points greater than U+007E (~).
    static let c0Control = PercentEncodeSet(low: 0x0000_0000_FFFF_FFFF, high: 1 << 63)

    /// The C0 control set plus space, `"`, `<`, `>` and `` ` ``.
    static let fragment = c0Control.adding(" \"<>`")

    /// The C0 control set plus space, `"`, `#`, `<` and `>`.
    static let query = c0Control.adding(" \"#<>")

    /// The query set plus `'`; used for the queries of special URLs.
    static let specialQuery = query.adding("'")

    /// The query set plus `?`, `^`, `` ` ``, `{` and `}`.
    static let path = query.adding("?^`{}")

    /// The path set plus `/`, `:`, `;`, `=`, `@`, `[` to `^` and `|`.
    static let userinfo = path.adding("/:;=@[\\]^|")

    /// The userinfo set plus `$` to `&`, `+` and `,` (what `encodeURIComponent()` encodes).
    static let component = userinfo.adding("$%&+,")
}

/// Percent-encoding and -decoding of bytes and code points.
package enum PercentEncoding {
    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Appends `%XX` (upper-case hex) for `byte` to `output`.
    @inline(__always)
    static func appendEncoded(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(0x25)
        output.append(upperHex[Int(byte >> 4)])
        output.append(upperHex[Int(byte & 0x0F)])
    }

    /// Appends `byte` to `output`, percent-encoded if it is in `set`.
    @inline(__always)
    static func append(byte: UInt8, encodingWith set: PercentEncodeSet, to output: inout [UInt8]) {
        if set.contains(byte) {
            appendEncoded(byte, to: &output)
        } else {
            output.append(byte)
        }
    }

    /// UTF-8 percent-encodes `scalar` using `set` and appends the result to `output`.
    @inline(__always)
    static func append(_ scalar: Unicode.Scalar, encodingWith set: PercentEncodeSet, to output: inout [UInt8]) {
        if scalar.value < 0x80 {
            append(byte: UInt8(truncatingIfNeeded: scalar.value), encodingWith: set, to: &output)
            return
        }
        // Every set contains all non-ASCII code points, so each UTF-8 byte is encoded.
        for byte in UTF8.encode(scalar)! {
            appendEncoded(byte, to: &output)
        }
    }

    /// UTF-8 percent-encodes every scalar of `scalars` using `set`.
    static func encode<S: Sequence>(_ scalars: S, using set: PercentEncodeSet) -> [UInt8]
    where S.Element == Unicode.Scalar {
        var output: [UInt8] = []
        output.reserveCapacity(scalars.underestimatedCount)
        for scalar in scalars {
            append(scalar, encodingWith: set, to: &output)
        }
        return output
    }

    /// The value of an ASCII hex digit byte, or nil.
    @inline(__always)
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// Percent-decodes a byte sequence: `%XX` with two hex digits becomes that byte,
    /// any other `%` is kept as is.
    package static func decode<C: Collection>(_ input: C) -> [UInt8] where C.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = input.startIndex
        while index != input.endIndex {
            let byte = input[index]
            input.formIndex(after: &index)
            guard byte == 0x25, index != input.endIndex else {
                output.append(byte)
                continue
            }
            let second = input.index(after: index)
            if second != input.endIndex,
               let high = hexValue(input[index]),
               let low = hexValue(input[second]) {
                output.append(high << 4 | low)
                index = input.index(after: second)
            } else {
                output.append(byte)
            }
        }
        return output
    }
}
