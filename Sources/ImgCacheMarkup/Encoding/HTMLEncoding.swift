import ImgCacheSupport
/// A character encoding of an HTML page, identified by its WHATWG Encoding Standard name.
///
/// Only the encodings the Encoding Standard defines exist; a browser supports no others, so a page
/// declaring anything else is decoded by a browser with whatever the sniffing algorithm falls back to.
public struct HTMLEncoding: Sendable, Hashable, CustomStringConvertible {
    /// The WHATWG canonical name, e.g. "UTF-8", "GBK", "Shift_JIS", "windows-1252", "UTF-16LE".
    public let name: String

    let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
        self.name = kind.canonicalName
    }

    /// Looks up an encoding label the way browsers do ("get an encoding" in the Encoding Standard):
    /// ASCII whitespace around the label is ignored and matching is ASCII case-insensitive.
    ///
    /// Returns nil for labels the Encoding Standard does not know, e.g. "utf-7" or "ebcdic".
    /// Note that "iso-8859-1", "latin1" and "us-ascii" are labels of windows-1252, and "gb2312" of GBK.
    public init?(label: String) {
        guard let kind = HTMLEncoding.labelTable[HTMLEncoding.normalizedLabel(label)] else { return nil }
        self.init(kind)
    }

    /// UTF-8, the encoding of almost every modern page.
    public static let utf8 = HTMLEncoding(.utf8)
    /// windows-1252, which browsers use for "iso-8859-1", "us-ascii" and undeclared legacy pages.
    package static let windows1252 = HTMLEncoding(.singleByte(.windows1252))
    /// UTF-16 little-endian; also what the bare label "utf-16" means.
    package static let utf16LE = HTMLEncoding(.utf16LE)
    /// UTF-16 big-endian.
    package static let utf16BE = HTMLEncoding(.utf16BE)

    /// Every encoding the Encoding Standard defines, in the standard's order.
    static let allEncodings: [HTMLEncoding] = Kind.all.map(HTMLEncoding.init)

    /// The canonical name.
    public var description: String { name }

    /// True when every byte < 0x80 means its ASCII character and no byte that is markup syntax in
    /// HTML or CSS can occur inside a multi-byte character: true for UTF-8, the single-byte encodings,
    /// GBK/gb18030, Big5, Shift_JIS, EUC-JP and EUC-KR; false for UTF-16, ISO-2022-JP and replacement.
    ///
    /// "Syntax" is the point: Shift_JIS and Big5 trail bytes include 0x40–0x7E (so "\", "{", "|") and
    /// gb18030 four-byte characters contain the digits 0x30–0x39, so code that looks at bytes of
    /// these encodings must step over whole characters with ``characterLength(at:in:)``.
    package var isASCIICompatible: Bool {
        switch kind {
        case .utf16LE, .utf16BE, .iso2022JP, .replacement: false
        default: true
        }
    }

    /// Length in bytes of the character starting at `bytes[i]` in this encoding: 1 for ASCII,
    /// e.g. 2 for a Shift_JIS lead 0x81–0x9F/0xE0–0xFC with a valid trail byte, 2 or 4 for
    /// GBK/gb18030, 3 for EUC-JP 0x8F, the sequence length for UTF-8. Never 0, never past the end.
    ///
    /// The answer is syntactic (byte ranges only): a lead byte whose trail is out of range is a
    /// one-byte error, as in the Encoding Standard's decoders, so an ASCII byte after it is seen as
    /// ASCII. A pair within range that the index leaves unmapped still counts as 2 here, although
    /// a browser would re-read an ASCII trail of such a pair; finding that out needs the index.
    /// Stateful ISO-2022-JP and the replacement encoding report 1.
    func characterLength(at i: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard i >= 0, i < bytes.count else { return 1 }
        let lead = bytes[i]
        switch kind {
        case .utf16LE, .utf16BE:
            return utf16CharacterLength(at: i, in: bytes)
        case .singleByte, .xUserDefined, .iso2022JP, .replacement:
            return 1
        default:
            break
        }
        if lead < 0x80 { return 1 }
        @inline(__always) func byte(_ k: Int) -> UInt8? { k < bytes.count ? bytes[k] : nil }
        switch kind {
        case .utf8:
            return UTF8Validation.sequenceLength(at: i, in: bytes)
        case .gbk, .gb18030:
            guard lead >= 0x81, lead <= 0xFE, let b1 = byte(i + 1) else { return 1 }
            if b1 >= 0x30, b1 <= 0x39 {
                guard let b2 = byte(i + 2), b2 >= 0x81, b2 <= 0xFE,
                      let b3 = byte(i + 3), b3 >= 0x30, b3 <= 0x39 else { return 1 }
                return 4
            }
            return (b1 >= 0x40 && b1 <= 0x7E) || (b1 >= 0x80 && b1 <= 0xFE) ? 2 : 1
        case .big5:
            guard lead >= 0x81, lead <= 0xFE, let b1 = byte(i + 1) else { return 1 }
            return (b1 >= 0x40 && b1 <= 0x7E) || (b1 >= 0xA1 && b1 <= 0xFE) ? 2 : 1
        case .shiftJIS:
            guard (lead >= 0x81 && lead <= 0x9F) || (lead >= 0xE0 && lead <= 0xFC),
                  let b1 = byte(i + 1) else { return 1 }
            return (b1 >= 0x40 && b1 <= 0x7E) || (b1 >= 0x80 && b1 <= 0xFC) ? 2 : 1
        case .eucJP:
            guard let b1 = byte(i + 1) else { return 1 }
            if lead == 0x8E { return b1 >= 0xA1 && b1 <= 0xDF ? 2 : 1 }
            if lead == 0x8F {
                guard b1 >= 0xA1, b1 <= 0xFE, let b2 = byte(i + 2), b2 >= 0xA1, b2 <= 0xFE else { return 1 }
                return 3
            }
            return lead >= 0xA1 && lead <= 0xFE && b1 >= 0xA1 && b1 <= 0xFE ? 2 : 1
        case .eucKR:
            guard lead >= 0x81, lead <= 0xFE, let b1 = byte(i + 1) else { return 1 }
            return b1 >= 0x41 && b1 <= 0xFE ? 2 : 1
        default:
            return 1
        }
    }

    private func utf16CharacterLength(at i: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard i + 1 < bytes.count else { return bytes.count - i }
        let unit = kind == .utf16LE
            ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
            : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
        guard unit & 0xFC00 == 0xD800, i + 3 < bytes.count else { return 2 }
        let next = kind == .utf16LE
            ? UInt16(bytes[i + 2]) | UInt16(bytes[i + 3]) << 8
            : UInt16(bytes[i + 2]) << 8 | UInt16(bytes[i + 3])
        return next & 0xFC00 == 0xDC00 ? 4 : 2
    }

    /// True for the CJK multi-byte encodings whose two-byte characters can, by accident, also form
    /// valid two-byte UTF-8 sequences.
    var isCJKMultiByte: Bool {
        switch kind {
        case .gbk, .gb18030, .big5, .shiftJIS, .eucJP, .eucKR: true
        default: false
        }
    }

    /// True for UTF-16LE and UTF-16BE.
    var isUTF16: Bool { kind == .utf16LE || kind == .utf16BE }

    static func normalizedLabel(_ label: String) -> String {
        var lowered = String.UnicodeScalarView()
        for scalar in label.trimmingASCIIWhitespace.unicodeScalars {
            // Only ASCII letters fold: a label with a non-ASCII "K" must not match "koi8-r".
            if scalar.value >= 0x41, scalar.value <= 0x5A, let lower = Unicode.Scalar(scalar.value + 0x20) {
                lowered.append(lower)
            } else {
                lowered.append(scalar)
            }
        }
        return String(lowered)
    }
}

extension HTMLEncoding {
    /// The encodings of the Encoding Standard, grouped by how they are decoded.
    enum Kind: Sendable, Hashable {
        case utf8
        case singleByte(SingleByteIndex)
        case gbk, gb18030, big5, eucJP, iso2022JP, shiftJIS, eucKR
        case replacement, utf16BE, utf16LE, xUserDefined

        static let all: [Kind] = [.utf8] + SingleByteIndex.allCases.map { .singleByte($0) } + [
            .gbk, .gb18030, .big5, .eucJP, .iso2022JP, .shiftJIS, .eucKR,
            .replacement, .utf16BE, .utf16LE, .xUserDefined,
        ]

        var canonicalName: String {
            switch self {
            case .utf8: "UTF-8"
            case .singleByte(let index): index.canonicalName
            case .gbk: "GBK"
            case .gb18030: "gb18030"
            case .big5: "Big5"
            case .eucJP: "EUC-JP"
            case .iso2022JP: "ISO-2022-JP"
            case .shiftJIS: "Shift_JIS"
            case .eucKR: "EUC-KR"
            case .replacement: "replacement"
            case .utf16BE: "UTF-16BE"
            case .utf16LE: "UTF-16LE"
            case .xUserDefined: "x-user-defined"
            }
        }
    }

    /// The Encoding Standard's label table (encodings.json), all lowercase.
    static let labelTable: [String: Kind] = {
        let groups: [(Kind, [String])] = [
            (.utf8, ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]),
            (.singleByte(.ibm866), ["866", "cp866", "csibm866", "ibm866"]),
            (.singleByte(.iso8859_2), ["csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592",
                                       "iso_8859-2", "iso_8859-2:1987", "l2", "latin2"]),
            (.singleByte(.iso8859_3), ["csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593",
                                       "iso_8859-3", "iso_8859-3:1988", "l3", "latin3"]),
            (.singleByte(.iso8859_4), ["csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594",
                                       "iso_8859-4", "iso_8859-4:1988", "l4", "latin4"]),
            (.singleByte(.iso8859_5), ["csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144", "iso8859-5",
                                       "iso88595", "iso_8859-5", "iso_8859-5:1988"]),
            (.singleByte(.iso8859_6), ["arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic",
                                       "ecma-114", "iso-8859-6", "iso-8859-6-e", "iso-8859-6-i", "iso-ir-127",
                                       "iso8859-6", "iso88596", "iso_8859-6", "iso_8859-6:1987"]),
            (.singleByte(.iso8859_7), ["csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-8859-7",
                                       "iso-ir-126", "iso8859-7", "iso88597", "iso_8859-7", "iso_8859-7:1987",
                                       "sun_eu_greek"]),
            (.singleByte(.iso8859_8), ["csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8", "iso-8859-8-e",
                                       "iso-ir-138", "iso8859-8", "iso88598", "iso_8859-8", "iso_8859-8:1988",
                                       "visual"]),
            (.singleByte(.iso8859_8I), ["csiso88598i", "iso-8859-8-i", "logical"]),
            (.singleByte(.iso8859_10), ["csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910",
                                        "l6", "latin6"]),
            (.singleByte(.iso8859_13), ["iso-8859-13", "iso8859-13", "iso885913"]),
            (.singleByte(.iso8859_14), ["iso-8859-14", "iso8859-14", "iso885914"]),
            (.singleByte(.iso8859_15), ["csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15",
                                        "l9"]),
            (.singleByte(.iso8859_16), ["iso-8859-16"]),
            (.singleByte(.koi8_r), ["cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"]),
            (.singleByte(.koi8_u), ["koi8-ru", "koi8-u"]),
            (.singleByte(.macintosh), ["csmacintosh", "mac", "macintosh", "x-mac-roman"]),
            (.singleByte(.windows874), ["dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620",
                                        "windows-874"]),
            (.singleByte(.windows1250), ["cp1250", "windows-1250", "x-cp1250"]),
            (.singleByte(.windows1251), ["cp1251", "windows-1251", "x-cp1251"]),
            (.singleByte(.windows1252), ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819",
                                         "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1",
                                         "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252",
                                         "x-cp1252"]),
            (.singleByte(.windows1253), ["cp1253", "windows-1253", "x-cp1253"]),
            (.singleByte(.windows1254), ["cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9",
                                         "iso88599", "iso_8859-9", "iso_8859-9:1989", "l5", "latin5",
                                         "windows-1254", "x-cp1254"]),
            (.singleByte(.windows1255), ["cp1255", "windows-1255", "x-cp1255"]),
            (.singleByte(.windows1256), ["cp1256", "windows-1256", "x-cp1256"]),
            (.singleByte(.windows1257), ["cp1257", "windows-1257", "x-cp1257"]),
            (.singleByte(.windows1258), ["cp1258", "windows-1258", "x-cp1258"]),
            (.singleByte(.xMacCyrillic), ["x-mac-cyrillic", "x-mac-ukrainian"]),
            (.gbk, ["chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk",
                    "iso-ir-58", "x-gbk"]),
            (.gb18030, ["gb18030"]),
            (.big5, ["big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"]),
            (.eucJP, ["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"]),
            (.iso2022JP, ["csiso2022jp", "iso-2022-jp"]),
            (.shiftJIS, ["csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j",
                         "x-sjis"]),
            (.eucKR, ["cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987",
                      "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949"]),
            (.replacement, ["csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr"]),
            (.utf16BE, ["unicodefffe", "utf-16be"]),
            (.utf16LE, ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"]),
            (.xUserDefined, ["x-user-defined"]),
        ]
        var table: [String: Kind] = [:]
        for (kind, labels) in groups {
            for label in labels { table[label] = kind }
        }
        return table
    }()
}

/// The Encoding Standard's single-byte encodings; each has a 128-entry index for bytes 0x80–0xFF.
enum SingleByteIndex: Sendable, Hashable, CaseIterable {
    case ibm866, iso8859_2, iso8859_3, iso8859_4, iso8859_5, iso8859_6, iso8859_7, iso8859_8, iso8859_8I
    case iso8859_10, iso8859_13, iso8859_14, iso8859_15, iso8859_16, koi8_r, koi8_u, macintosh
    case windows874, windows1250, windows1251, windows1252, windows1253, windows1254, windows1255
    case windows1256, windows1257, windows1258, xMacCyrillic

    var canonicalName: String {
        switch self {
        case .ibm866: "IBM866"
        case .iso8859_2: "ISO-8859-2"
        case .iso8859_3: "ISO-8859-3"
        case .iso8859_4: "ISO-8859-4"
        case .iso8859_5: "ISO-8859-5"
        case .iso8859_6: "ISO-8859-6"
        case .iso8859_7: "ISO-8859-7"
        case .iso8859_8: "ISO-8859-8"
        case .iso8859_8I: "ISO-8859-8-I"
        case .iso8859_10: "ISO-8859-10"
        case .iso8859_13: "ISO-8859-13"
        case .iso8859_14: "ISO-8859-14"
        case .iso8859_15: "ISO-8859-15"
        case .iso8859_16: "ISO-8859-16"
        case .koi8_r: "KOI8-R"
        case .koi8_u: "KOI8-U"
        case .macintosh: "macintosh"
        case .windows874: "windows-874"
        case .windows1250: "windows-1250"
        case .windows1251: "windows-1251"
        case .windows1252: "windows-1252"
        case .windows1253: "windows-1253"
        case .windows1254: "windows-1254"
        case .windows1255: "windows-1255"
        case .windows1256: "windows-1256"
        case .windows1257: "windows-1257"
        case .windows1258: "windows-1258"
        case .xMacCyrillic: "x-mac-cyrillic"
        }
    }

    /// Code points for bytes 0x80–0xFF; 0 marks a byte that decodes as an error.
    var table: [UInt32] {
        SingleByteIndex.parsedTables[self] ?? []
    }

    private static let parsedTables: [SingleByteIndex: [UInt32]] = {
        var tables: [SingleByteIndex: [UInt32]] = [:]
        for index in allCases {
            let hex = hexTable(for: index)
            var table: [UInt32] = []
            table.reserveCapacity(128)
            hex.withUTF8Buffer { digits in
                var value: UInt32 = 0
                for (k, digit) in digits.enumerated() {
                    let nibble: UInt32 = digit <= 0x39 ? UInt32(digit - 0x30) : UInt32(digit - 0x41 + 10)
                    value = value << 4 | nibble
                    if k % 4 == 3 {
                        table.append(value)
                        value = 0
                    }
                }
            }
            tables[index] = table
        }
        return tables
    }()
}
