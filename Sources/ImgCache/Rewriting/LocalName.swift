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

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `3f2a….png`, or `3f/3f2a….png` with fan-out.
    var string: String {
        var name: [UInt8] = []
        name.reserveCapacity(3 + 64 + 1 + pathExtension.utf8.count)
        append(to: &name)
        return String(decoding: name, as: UTF8.self)
    }

    /// The length of the spelling in bytes.
    var byteCount: Int { (fanOut ? 3 : 0) + 64 + 1 + pathExtension.utf8.count }

    /// Appends the spelling to `name` without building a String.
    func append(to name: inout [UInt8]) {
        if fanOut {
            name += [Self.hexDigits[Int(digest[0] >> 4)], Self.hexDigits[Int(digest[0] & 0x0F)], UInt8(ascii: "/")]
        }
        for i in 0..<32 {
            name.append(Self.hexDigits[Int(digest[i] >> 4)])
            name.append(Self.hexDigits[Int(digest[i] & 0x0F)])
        }
        name.append(UInt8(ascii: "."))
        name += pathExtension.utf8
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
