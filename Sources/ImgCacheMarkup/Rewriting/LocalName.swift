/// A cache file name held as the 32 bytes of its SHA-256 digest plus its extension, and
/// spelled out only when asked: a page with 100,000 images keeps no 100,000 name strings.
struct LocalName: Hashable, Sendable {
    /// The 32 digest bytes, big-endian in four words: 8-byte aligned, unlike a SIMD vector, so a
    /// reference holding one stays small.
    struct Digest: Hashable, Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        subscript(index: Int) -> UInt8 {
            get {
                let word: UInt64
                switch index / 8 {
                case 0: word = words.0
                case 1: word = words.1
                case 2: word = words.2
                default: word = words.3
                }
                return UInt8(truncatingIfNeeded: word >> UInt64(8 * (7 - index % 8)))
            }
            set {
                let shift = UInt64(8 * (7 - index % 8))
                let mask = ~(UInt64(0xFF) << shift)
                let value = UInt64(newValue) << shift
                switch index / 8 {
                case 0: words.0 = words.0 & mask | value
                case 1: words.1 = words.1 & mask | value
                case 2: words.2 = words.2 & mask | value
                default: words.3 = words.3 & mask | value
                }
            }
        }

        static func == (lhs: Digest, rhs: Digest) -> Bool {
            lhs.words == rhs.words
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    let digest: Digest
    /// Lowercase, already safe to write into a page.
    let pathExtension: String
    /// Whether the name sits in a two-hex-digit subfolder.
    let fanOut: Bool

    /// `3f2a….png`, or `3f/3f2a….png` with fan-out.
    var string: String {
        // Spelled straight into the string's storage: through an array first, every name cost
        // the array, its copy and the UTF-8 check, and names are made by the thousand.
        String(unsafeUninitializedCapacity: byteCount) { spell(into: UnsafeMutableRawBufferPointer($0)) }
    }

    /// `prefix` followed by the spelling, made in one string.
    func string(after prefix: String) -> String {
        prefix.withUTF8Bytes { head in
            String(unsafeUninitializedCapacity: head.count + byteCount) { buffer in
                let end = buffer.initialize(fromContentsOf: head)
                return end + spell(into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[end...])))
            }
        }
    }

    /// The length of the spelling in bytes.
    var byteCount: Int { (fanOut ? 3 : 0) + 64 + 1 + pathExtension.utf8.count }

    /// Appends the spelling to `name` without building a String. A rewritten page spells one
    /// name per reference: the digits are made eight at a time in a word (see `hexDigits(of:)`),
    /// where a byte at a time each append checked the array's uniqueness and capacity.
    func append(to name: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount) { spelling in
            let count = spell(into: UnsafeMutableRawBufferPointer(spelling))
            name.append(contentsOf: UnsafeBufferPointer(rebasing: spelling[..<count]))
        }
    }

    /// Writes the spelling at the start of `raw` (at least ``byteCount`` bytes) and returns its length.
    private func spell(into raw: UnsafeMutableRawBufferPointer) -> Int {
        var offset = 0
        if fanOut {
            let first = UInt8(truncatingIfNeeded: digest.words.0 >> 56)
            raw[0] = Self.hexDigit(first >> 4)
            raw[1] = Self.hexDigit(first & 0x0F)
            raw[2] = UInt8(ascii: "/")
            offset = 3
        }
        Self.spell(digest.words.0, at: offset, in: raw)
        Self.spell(digest.words.1, at: offset + 16, in: raw)
        Self.spell(digest.words.2, at: offset + 32, in: raw)
        Self.spell(digest.words.3, at: offset + 48, in: raw)
        offset += 64
        raw[offset] = UInt8(ascii: ".")
        offset += 1
        // The length comes back as the closure's result: an outer variable changed inside it
        // was checked for exclusive access at run time, once per name.
        let extensionStart = offset
        return extensionStart + pathExtension.withUTF8Bytes { bytes in
            UnsafeMutableRawBufferPointer(rebasing: raw[extensionStart...]).copyMemory(from: UnsafeRawBufferPointer(bytes))
            return bytes.count
        }
    }

    /// Writes the 16 hex digits of `word` at `offset`, big-endian, so that each half's first digit
    /// is its first byte in memory.
    private static func spell(_ word: UInt64, at offset: Int, in raw: UnsafeMutableRawBufferPointer) {
        let high = hexDigits(of: UInt32(truncatingIfNeeded: word >> 32)), low = hexDigits(of: UInt32(truncatingIfNeeded: word))
        raw.storeBytes(of: high.bigEndian, toByteOffset: offset, as: UInt64.self)
        raw.storeBytes(of: low.bigEndian, toByteOffset: offset + 8, as: UInt64.self)
    }

    /// The eight lowercase hex digits of `value`, one a byte, the last digit in the lowest byte.
    private static func hexDigits(of value: UInt32) -> UInt64 {
        // Each nibble into a byte of its own: halves, then quarters, then nibbles.
        var nibbles = UInt64(value)
        nibbles = (nibbles | nibbles << 16) & 0x0000_FFFF_0000_FFFF
        nibbles = (nibbles | nibbles << 8) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles | nibbles << 4) & 0x0F0F_0F0F_0F0F_0F0F
        // 0x01 in each byte whose nibble is 10 or more: those go from "0"+10 on to "a".
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* UInt64(UInt8(ascii: "a") - UInt8(ascii: "9") - 1)
    }

    /// The lowercase hex digit of a value below 16.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    init(digest: Digest, pathExtension: String, fanOut: Bool) {
        self.digest = digest
        self.pathExtension = pathExtension
        self.fanOut = fanOut
    }

    /// Reads a name back from its spelling.
    init?(_ string: String) {
        var text = Substring(string)
        var fanOut = false
        if text.count > 3, text.dropFirst(2).first == "/" {
            fanOut = true
            text = text.dropFirst(3)
        }
        guard let dot = text.firstIndex(of: "."), text.distance(from: text.startIndex, to: dot) == 64 else { return nil }
        var digest = Digest()
        let hex = Array(text[..<dot].utf8)
        for i in 0..<32 {
            guard let high = Self.value(hex[2 * i]), let low = Self.value(hex[2 * i + 1]) else { return nil }
            digest[i] = high << 4 | low
        }
        self.init(digest: digest, pathExtension: String(text[text.index(after: dot)...]), fanOut: fanOut)
    }

    private static func value(_ hexDigit: UInt8) -> UInt8? {
        switch hexDigit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): hexDigit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): hexDigit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
