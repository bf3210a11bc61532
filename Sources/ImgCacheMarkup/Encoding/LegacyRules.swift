/// The iconv names that implement the Encoding Standard's CJK encodings most closely, and the few
/// places where iconv still differs from what a browser does.
///
/// The standard's "Shift_JIS" is Microsoft's CP932, "EUC-KR" is CP949 (UHC), "Big5" is Big5-HKSCS,
/// and "GBK" decodes as gb18030; glibc's plain SHIFT_JIS, for one, would turn 0x5C into "¥".
enum LegacyRules {
    static func iconvNames(for kind: HTMLEncoding.Kind) -> [String] {
        switch kind {
        case .gbk, .gb18030: ["GB18030", "GBK", "CP936"]
        case .big5: ["BIG5-HKSCS", "BIG5HKSCS", "CP950", "BIG5"]
        case .eucJP: ["EUC-JP-MS", "EUCJP-MS", "EUC-JP"]
        case .shiftJIS: ["CP932", "WINDOWS-31J", "SHIFT_JIS"]
        case .eucKR: ["CP949", "UHC", "EUC-KR"]
        case .iso2022JP: ["ISO-2022-JP"]
        default: []
        }
    }

    /// A converter from `kind` to UTF-8, or nil when this platform's iconv lacks every name.
    static func decoder(for kind: HTMLEncoding.Kind) -> IconvConverter? {
        IconvConverter(from: iconvNames(for: kind), to: ["UTF-8"])
    }

    /// A converter from UTF-8 to `kind`, or nil when this platform's iconv lacks every name.
    static func encoder(for kind: HTMLEncoding.Kind) -> IconvConverter? {
        IconvConverter(from: ["UTF-8"], to: iconvNames(for: kind))
    }

    /// Single bytes the standard decodes but iconv rejects.
    static func specialDecoding(of byte: UInt8, in kind: HTMLEncoding.Kind) -> UInt32? {
        switch (kind, byte) {
        case (.shiftJIS, 0x80): 0x80
        case (.gbk, 0x80), (.gb18030, 0x80): 0x20AC
        default: nil
        }
    }

    /// How the standard's encoder treats a scalar before any index lookup.
    enum SpecialEncoding {
        case none
        case bytes([UInt8])
        case substitute(Unicode.Scalar)
        case unmappable
    }

    static func specialEncoding(of scalar: Unicode.Scalar, in kind: HTMLEncoding.Kind) -> SpecialEncoding {
        switch (kind, scalar.value) {
        case (.shiftJIS, 0x80): .bytes([0x80])
        case (.shiftJIS, 0xA5), (.eucJP, 0xA5): .bytes([0x5C])
        case (.shiftJIS, 0x203E), (.eucJP, 0x203E): .bytes([0x7E])
        case (.shiftJIS, 0x2212), (.eucJP, 0x2212): .substitute("\u{FF0D}")
        case (.gbk, 0x20AC): .bytes([0x80])
        case (.gbk, 0xE5E5), (.gb18030, 0xE5E5): .unmappable
        default: .none
        }
    }

    /// Whether bytes iconv produced for one character are what the standard's encoder may produce:
    /// its GBK encoder has no four-byte form, its Big5 encoder skips the HKSCS rows below lead 0xA1,
    /// and its EUC-JP encoder never uses JIS X 0212 (lead 0x8F).
    static func acceptsEncoded(_ bytes: [UInt8], in kind: HTMLEncoding.Kind) -> Bool {
        guard let lead = bytes.first else { return false }
        switch kind {
        case .gbk: return bytes.count <= 2
        case .big5: return lead >= 0xA1
        case .eucJP: return lead != 0x8F
        default: return true
        }
    }

    /// How many bytes one U+FFFD replaces when the character at `i` cannot be decoded. Like the
    /// standard's decoders, an ASCII trail byte is given back, so "\" after a bad lead stays "\".
    static func errorLength(at i: Int, in bytes: UnsafeBufferPointer<UInt8>, encoding: HTMLEncoding) -> Int {
        let length = encoding.characterLength(at: i, in: bytes)
        if length == 2, bytes[i + 1] < 0x80 { return 1 }
        return length
    }
}
