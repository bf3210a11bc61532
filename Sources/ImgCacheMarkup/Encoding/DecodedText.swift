import ImgCacheSupport
import ImgCacheURLs
/// Text decoded from a span of raw page bytes, remembering for every decoded scalar where it came from,
/// so that a token found in the decoded text can be replaced in the raw bytes.
struct DecodedText: Sendable {
    /// The decoded scalars.
    let scalars: [Unicode.Scalar]
    /// rawOffsets[i] = offset (relative to the start of the raw span) of the first raw byte of scalars[i];
    /// rawOffsets[scalars.count] = raw span length.
    ///
    /// Offsets never decrease. They repeat only where one raw unit yields several scalars: a named
    /// reference such as "&NotEqualTilde;" or a Big5 byte pair that decodes to two scalars.
    var rawOffsets: [Int] { isPlainASCII ? Array(0...scalars.count) : storedOffsets }
    // Empty for plain ASCII, where scalar i is byte i: most attribute values, spared an array.
    private let storedOffsets: [Int]
    /// True when every scalar is the ASCII byte at the same offset: the raw bytes are the text.
    let isPlainASCII: Bool

    /// The decoded text as a String.
    var string: String {
        String(scalars: scalars[...])
    }

    /// The raw byte range (relative to the span) that produced `scalarRange`, widened so that it
    /// never splits a raw unit that produced several scalars; replacing exactly these bytes replaces
    /// exactly that text.
    func rawRange(of scalarRange: Range<Int>) -> Range<Int> {
        let lower = min(max(scalarRange.lowerBound, 0), scalars.count)
        var upper = min(max(scalarRange.upperBound, lower), scalars.count)
        if isPlainASCII { return lower..<upper }
        let rawOffsets = storedOffsets
        if upper > lower {
            while upper < scalars.count, rawOffsets[upper] == rawOffsets[upper - 1] { upper += 1 }
        }
        return rawOffsets[lower]..<rawOffsets[upper]
    }

    /// Decodes `raw` (bytes in `encoding`, which must be ASCII-compatible). When `characterReferences`
    /// is true, decodes HTML character references as the HTML tokenizer does in an attribute value:
    /// numeric ones with the standard's replacements, named ones with or without ";" per the standard,
    /// keeping literal a named reference without ";" that is followed by "=" or an ASCII alphanumeric
    /// (so "?a=1&copy=2" stays as written). Invalid bytes become U+FFFD covering those bytes.
    ///
    /// UTF-16 is handled too. For ISO-2022-JP and replacement, whose bytes mean nothing out of their
    /// stateful context, ASCII bytes are kept and other bytes become U+FFFD; transcode such pages
    /// first (``TextCodec/transcodeToUTF8Exactly(_:from:)``).
    static func decode(_ raw: UnsafeBufferPointer<UInt8>, encoding: HTMLEncoding, characterReferences: Bool) -> DecodedText {
        if encoding.isASCIICompatible, isPlainASCII(raw, ampersandMatters: characterReferences) {
            // Widened in one pass into uninitialised storage: `map` went through an iterator per byte,
            // and a page's style sheets are megabytes of such text.
            let scalars = [Unicode.Scalar](unsafeUninitializedCapacity: raw.count) { buffer, initialized in
                for i in 0..<raw.count { buffer.initializeElement(at: i, to: Unicode.Scalar(raw[i])) }
                initialized = raw.count
            }
            return DecodedText(scalars: scalars, storedOffsets: [], isPlainASCII: true)
        }
        var (scalars, offsets) = decodeScalars(raw, encoding: encoding)
        if characterReferences, scalars.contains("&") {
            (scalars, offsets) = CharacterReferences.resolveInAttributeValue(scalars: scalars, offsets: offsets)
        }
        return DecodedText(scalars: scalars, storedOffsets: offsets, isPlainASCII: false)
    }

    /// True when every byte is ASCII and (if references are being decoded) none is "&": then every
    /// byte is its own scalar and nothing else has to be looked at.
    static func isPlainASCII(_ raw: UnsafeBufferPointer<UInt8>, ampersandMatters: Bool) -> Bool {
        guard let base = raw.baseAddress else { return true }
        let memory = UnsafeRawPointer(base)
        var i = 0
        // Eight bytes per step: a page's style sheets run to megabytes.
        while i + 8 <= raw.count {
            let word = memory.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if !word.isASCII || (ampersandMatters && word.containsByte(UInt8(ascii: "&"))) { return false }
            i += 8
        }
        while i < raw.count {
            let byte = raw[i]
            if byte >= 0x80 || (ampersandMatters && byte == 0x26) { return false }
            i += 1
        }
        return true
    }

    private static func decodeScalars(_ raw: UnsafeBufferPointer<UInt8>, encoding: HTMLEncoding) -> ([Unicode.Scalar], [Int]) {
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        scalars.reserveCapacity(raw.count)
        offsets.reserveCapacity(raw.count + 1)
        func emit(_ scalar: Unicode.Scalar, _ offset: Int) {
            scalars.append(scalar)
            offsets.append(offset)
        }
        let count = raw.count
        var i = 0
        switch encoding.kind {
        case .utf8:
            while i < count {
                let (scalar, length) = UTF8Validation.decodeScalar(at: i, in: raw)
                emit(scalar ?? "\u{FFFD}", i)
                i += length
            }
        case .singleByte(let index):
            let table = index.table
            for (offset, byte) in raw.enumerated() {
                let value = byte < 0x80 ? UInt32(byte) : table[Int(byte) - 0x80]
                emit(value == 0 && byte != 0 ? "\u{FFFD}" : Unicode.Scalar(value) ?? "\u{FFFD}", offset)
            }
        case .xUserDefined:
            for (offset, byte) in raw.enumerated() {
                emit(byte < 0x80 ? Unicode.Scalar(byte) : Unicode.Scalar(0xF780 + UInt32(byte) - 0x80) ?? "\u{FFFD}", offset)
            }
        case .utf16LE, .utf16BE:
            while i < count {
                let length = encoding.characterLength(at: i, in: raw)
                let piece = UnsafeBufferPointer(rebasing: raw[i..<(i + length)])
                let utf8 = TextCodec.decodeToUTF8(piece, from: encoding, strict: false) ?? []
                for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars { emit(scalar, i) }
                i += length
            }
        case .iso2022JP, .replacement:
            for (offset, byte) in raw.enumerated() {
                emit(byte < 0x80 ? Unicode.Scalar(byte) : "\u{FFFD}", offset)
            }
        case .gbk, .gb18030, .big5, .eucJP, .shiftJIS, .eucKR:
            var decoder = LegacyCharacterDecoder(encoding: encoding)
            while i < count {
                let byte = raw[i]
                if byte < 0x80 {
                    emit(Unicode.Scalar(byte), i)
                    i += 1
                    continue
                }
                let length = encoding.characterLength(at: i, in: raw)
                if let decoded = decoder.decode(UnsafeBufferPointer(rebasing: raw[i..<(i + length)])) {
                    for scalar in decoded { emit(scalar, i) }
                    i += length
                } else {
                    emit("\u{FFFD}", i)
                    i += LegacyRules.errorLength(at: i, in: raw, encoding: encoding)
                }
            }
        }
        offsets.append(count)
        return (scalars, offsets)
    }
}

/// Decodes one character at a time of a multi-byte legacy encoding with a single iconv converter,
/// opened on first use: attribute values and CSS tokens are short, so this costs one iconv call
/// per non-ASCII character and nothing for ASCII.
private struct LegacyCharacterDecoder {
    let encoding: HTMLEncoding
    private var converter: IconvConverter?
    private var opened = false
    private var output: [UInt8] = []

    init(encoding: HTMLEncoding) {
        self.encoding = encoding
    }

    /// The scalars of one character, or nil when it is invalid or unmapped.
    mutating func decode(_ character: UnsafeBufferPointer<UInt8>) -> [Unicode.Scalar]? {
        if character.count == 1, let special = LegacyRules.specialDecoding(of: character[0], in: encoding.kind) {
            return Unicode.Scalar(special).map { [$0] }
        }
        if !opened {
            opened = true
            converter = LegacyRules.decoder(for: encoding.kind)
        }
        guard let converter else { return nil }
        output.removeAll(keepingCapacity: true)
        let (consumed, failure) = converter.convert(character, appendingTo: &output)
        guard failure == nil, consumed == character.count else {
            converter.reset()
            return nil
        }
        converter.flush(appendingTo: &output)
        let scalars = Array(String(decoding: output, as: UTF8.self).unicodeScalars)
        return scalars.isEmpty ? nil : scalars
    }
}
