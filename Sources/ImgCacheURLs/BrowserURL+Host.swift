// Host parsing and serialising (https://url.spec.whatwg.org/#hosts-(domains-and-ip-addresses)).

extension BrowserURL {
    /// A parsed host: a domain, an IP address, an opaque host or the empty host.
    enum Host: Sendable, Hashable {
        /// An ASCII domain (already IDNA-processed and lower-cased).
        case domain(String)
        /// An IPv4 address as a 32-bit number.
        case ipv4(UInt32)
        /// An IPv6 address as its eight 16-bit pieces.
        case ipv6([UInt16])
        /// A percent-encoded host of a non-special URL.
        case opaque(String)
        /// The empty host (`file:///`, `sc://`).
        case empty

        /// The host serializer.
        var serialized: String {
            switch self {
            case .domain(let name), .opaque(let name):
                return name
            case .empty:
                return ""
            case .ipv4(let address):
                return "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
            case .ipv6(let pieces):
                return "[" + Self.serializeIPv6(pieces) + "]"
            }
        }

        // MARK: - Host parser

        /// Parses `input` as a host; `isOpaque` is true for URLs that are not special.
        /// Returns nil on failure.
        static func parse(_ input: ArraySlice<Unicode.Scalar>, isOpaque: Bool) -> Host? {
            if input.first == "[" {
                guard input.count >= 2, input.last == "]" else { return nil }
                return parseIPv6(input.dropFirst().dropLast()).map(Host.ipv6)
            }
            if isOpaque {
                return parseOpaque(input)
            }
            var utf8: [UInt8] = []
            utf8.reserveCapacity(input.count)
            for scalar in input {
                if scalar.value < 0x80 {
                    utf8.append(UInt8(scalar.value))
                } else {
                    utf8.append(contentsOf: UTF8.encode(scalar)!)
                }
            }
            let decoded = PercentEncoding.decode(utf8)
            guard let asciiDomain = domainToASCII(decoded) else { return nil }
            if endsInANumber(asciiDomain) {
                return parseIPv4(asciiDomain).map(Host.ipv4)
            }
            return .domain(String(decoding: asciiDomain, as: UTF8.self))
        }

        /// A forbidden host code point: NUL, tab, LF, CR, space, `#/:<>?@[\]^|`.
        static func isForbiddenHostCodePoint(_ value: UInt32) -> Bool {
            switch value {
            case 0x00, 0x09, 0x0A, 0x0D, 0x20, 0x23, 0x2F, 0x3A, 0x3C, 0x3E, 0x3F, 0x40, 0x5B, 0x5C, 0x5D, 0x5E, 0x7C:
                return true
            default:
                return false
            }
        }

        /// A forbidden domain code point: a forbidden host code point, a C0 control, `%` or DEL.
        static func isForbiddenDomainCodePoint(_ value: UInt32) -> Bool {
            isForbiddenHostCodePoint(value) || value <= 0x1F || value == 0x25 || value == 0x7F
        }

        // MARK: - Domains

        /// "domain to ASCII" with beStrict = false, given the percent-decoded UTF-8 bytes of a host.
        static func domainToASCII(_ bytes: [UInt8]) -> [UInt8]? {
            var result: [UInt8]
            if bytes.allSatisfy({ $0 < 0x80 }) && !hasACELabel(bytes) {
                // For ASCII input without xn-- labels, ToASCII is just lower-casing.
                result = bytes
                for index in result.indices where result[index] >= 0x41 && result[index] <= 0x5A {
                    result[index] += 0x20
                }
            } else {
                // UTF-8 decode without BOM: invalid sequences become U+FFFD, which IDNA rejects.
                let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
                guard let ascii = IDNA.toASCII(scalars) else { return nil }
                result = Array(ascii.utf8)
            }
            guard !result.isEmpty else { return nil }
            for byte in result where isForbiddenDomainCodePoint(UInt32(byte)) {
                return nil
            }
            return result
        }

        /// Whether some label starts with an ASCII case-insensitive "xn--".
        private static func hasACELabel(_ bytes: [UInt8]) -> Bool {
            var labelStart = 0
            while labelStart + 4 <= bytes.count {
                if bytes[labelStart] | 0x20 == 0x78, bytes[labelStart + 1] | 0x20 == 0x6E,
                   bytes[labelStart + 2] == 0x2D, bytes[labelStart + 3] == 0x2D {
                    return true
                }
                guard let dot = bytes[labelStart...].firstIndex(of: 0x2E) else { return false }
                labelStart = dot + 1
            }
            return false
        }

        // MARK: - IPv4

        /// The ends-in-a-number checker.
        static func endsInANumber(_ input: [UInt8]) -> Bool {
            var parts = input.split(separator: 0x2E, omittingEmptySubsequences: false)
            if parts.last?.isEmpty == true {
                if parts.count == 1 { return false }
                parts.removeLast()
            }
            guard let last = parts.last else { return false }
            if !last.isEmpty && last.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
            return parseIPv4Number(last) != nil
        }

        /// The IPv4 parser. Returns nil on failure.
        static func parseIPv4(_ input: [UInt8]) -> UInt32? {
            var parts = input.split(separator: 0x2E, omittingEmptySubsequences: false)
            if parts.last?.isEmpty == true && parts.count > 1 {
                parts.removeLast()
            }
            guard parts.count <= 4 else { return nil }
            var numbers: [UInt64] = []
            for part in parts {
                guard let number = parseIPv4Number(part) else { return nil }
                numbers.append(number)
            }
            guard let last = numbers.last else { return nil }
            for number in numbers.dropLast() where number > 255 {
                return nil
            }
            guard last < UInt64(1) << (8 * UInt64(5 - numbers.count)) else { return nil }
            var ipv4 = last
            for (counter, number) in numbers.dropLast().enumerated() {
                ipv4 += number << (8 * UInt64(3 - counter))
            }
            return UInt32(ipv4)
        }

        /// The IPv4 number parser: decimal, `0x` hex or `0` octal. Values too large for an
        /// address saturate (they are rejected by the caller either way).
        static func parseIPv4Number(_ input: ArraySlice<UInt8>) -> UInt64? {
            guard !input.isEmpty else { return nil }
            var digits = input
            var radix: UInt64 = 10
            if digits.count >= 2 && digits.first == 0x30 && (digits[digits.startIndex + 1] | 0x20) == 0x78 {
                digits = digits.dropFirst(2)
                radix = 16
            } else if digits.count >= 2 && digits.first == 0x30 {
                digits = digits.dropFirst()
                radix = 8
            }
            var value: UInt64 = 0
            let saturation: UInt64 = 1 << 40
            for byte in digits {
                let digit: UInt64
                switch byte {
                case 0x30...0x39: digit = UInt64(byte - 0x30)
                case 0x41...0x46: digit = UInt64(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt64(byte - 0x61 + 10)
                default: return nil
                }
                guard digit < radix else { return nil }
                value = min(value * radix + digit, saturation)
            }
            return value
        }

        // MARK: - IPv6

        /// The IPv6 parser. Returns the eight pieces, or nil on failure.
        static func parseIPv6(_ input: ArraySlice<Unicode.Scalar>) -> [UInt16]? {
            let input = Array(input)
            var address = [UInt16](repeating: 0, count: 8)
            var pieceIndex = 0
            var compress: Int?
            var pointer = 0
            func c(_ at: Int) -> UInt32? { at < input.count ? input[at].value : nil }
            func hex(_ value: UInt32?) -> UInt32? {
                guard let value, value < 0x80 else { return nil }
                return PercentEncoding.hexValue(UInt8(value)).map(UInt32.init)
            }

            if c(pointer) == 0x3A {
                guard c(pointer + 1) == 0x3A else { return nil }
                pointer += 2
                pieceIndex += 1
                compress = pieceIndex
            }
            pieces: while c(pointer) != nil {
                guard pieceIndex != 8 else { return nil }
                if c(pointer) == 0x3A {
                    guard compress == nil else { return nil }
                    pointer += 1
                    pieceIndex += 1
                    compress = pieceIndex
                    continue
                }
                var value: UInt32 = 0
                var length = 0
                while length < 4, let digit = hex(c(pointer)) {
                    value = value * 0x10 + digit
                    pointer += 1
                    length += 1
                }
                if c(pointer) == 0x2E {
                    guard length != 0 else { return nil }
                    pointer -= length
                    guard pieceIndex <= 6 else { return nil }
                    var numbersSeen = 0
                    while c(pointer) != nil {
                        var ipv4Piece: UInt32?
                        if numbersSeen > 0 {
                            guard c(pointer) == 0x2E, numbersSeen < 4 else { return nil }
                            pointer += 1
                        }
                        guard let code = c(pointer), code >= 0x30, code <= 0x39 else { return nil }
                        while let digitCode = c(pointer), digitCode >= 0x30, digitCode <= 0x39 {
                            let number = digitCode - 0x30
                            if let piece = ipv4Piece {
                                guard piece != 0 else { return nil }
                                ipv4Piece = piece * 10 + number
                            } else {
                                ipv4Piece = number
                            }
                            guard ipv4Piece! <= 255 else { return nil }
                            pointer += 1
                        }
                        address[pieceIndex] = address[pieceIndex] &* 0x100 &+ UInt16(ipv4Piece!)
                        numbersSeen += 1
                        if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                    }
                    guard numbersSeen == 4 else { return nil }
                    break pieces
                } else if c(pointer) == 0x3A {
                    pointer += 1
                    guard c(pointer) != nil else { return nil }
                } else if c(pointer) != nil {
                    return nil
                }
                address[pieceIndex] = UInt16(value)
                pieceIndex += 1
            }
            if let compress {
                var swaps = pieceIndex - compress
                pieceIndex = 7
                while pieceIndex != 0 && swaps > 0 {
                    address.swapAt(pieceIndex, compress + swaps - 1)
                    pieceIndex -= 1
                    swaps -= 1
                }
            } else if pieceIndex != 8 {
                return nil
            }
            return address
        }

        /// The IPv6 serializer (without brackets): lower-case hex, the first longest run of
        /// two or more zero pieces compressed to `::`.
        static func serializeIPv6(_ address: [UInt16]) -> String {
            var longestIndex: Int?
            var longestSize = 1
            var foundIndex: Int?
            var foundSize = 0
            for (index, piece) in address.enumerated() {
                if piece != 0 {
                    if foundSize > longestSize {
                        longestIndex = foundIndex
                        longestSize = foundSize
                    }
                    foundIndex = nil
                    foundSize = 0
                } else {
                    if foundIndex == nil { foundIndex = index }
                    foundSize += 1
                }
            }
            let compress = foundSize > longestSize ? foundIndex : longestIndex

            var output = ""
            var ignore0 = false
            for (index, piece) in address.enumerated() {
                if ignore0 && piece == 0 { continue }
                ignore0 = false
                if compress == index {
                    output += index == 0 ? "::" : ":"
                    ignore0 = true
                    continue
                }
                output += String(piece, radix: 16)
                if index != 7 { output += ":" }
            }
            return output
        }

        // MARK: - Opaque hosts

        /// The opaque-host parser: rejects forbidden host code points, then UTF-8
        /// percent-encodes with the C0 control set. Empty input gives the empty host.
        static func parseOpaque(_ input: ArraySlice<Unicode.Scalar>) -> Host? {
            for scalar in input where isForbiddenHostCodePoint(scalar.value) {
                return nil
            }
            if input.isEmpty { return .empty }
            let encoded = PercentEncoding.encode(input, using: .c0Control)
            return .opaque(String(decoding: encoded, as: UTF8.self))
        }
    }
}
