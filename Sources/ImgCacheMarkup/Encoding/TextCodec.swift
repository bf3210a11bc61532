/// Converts between an HTMLEncoding and Unicode, following the Encoding Standard's decoders and
/// encoders; never throws on bad input: invalid sequences decode to U+FFFD.
///
/// Single-byte encodings, UTF-8, UTF-16 and x-user-defined are done here from the standard's
/// indexes; the CJK encodings and ISO-2022-JP go through iconv, with the few corrections that make
/// glibc behave like a browser (see `LegacyRules`).
@_spi(Fuzzing) public enum TextCodec {
    /// Decodes `bytes` as a browser would. A byte order mark is not stripped: callers slice it off
    /// with ``SniffedEncoding/byteOrderMarkLength``.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, from encoding: HTMLEncoding) -> String {
        if encoding.kind == .utf8 { return String(decoding: bytes, as: UTF8.self) }
        let utf8 = decodeToUTF8(bytes, from: encoding, strict: false) ?? []
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Encodes for a URL query the WHATWG way: characters the encoding cannot represent become
    /// "&#NNNN;" (decimal) before percent-encoding happens elsewhere. Returns raw bytes.
    ///
    /// As in the URL Standard's "get an output encoding", UTF-16BE/LE and replacement encode as
    /// UTF-8: a browser never puts UTF-16 into a URL. Use `transcodeFromUTF8(_:to:)` for real UTF-16.
    @_spi(Fuzzing) public static func encode(_ string: String, to encoding: HTMLEncoding) -> [UInt8] {
        switch encoding.kind {
        case .utf8, .utf16LE, .utf16BE, .replacement:
            return Array(string.utf8)
        default:
            return encodeScalars(string.unicodeScalars, to: encoding, strict: false) ?? Array(string.utf8)
        }
    }

    /// Whole-document transcoding for encodings that are not ASCII-compatible (UTF-16, ISO-2022-JP):
    /// returns the UTF-8 form of `bytes`, or nil unless `bytes` decode without error and converting
    /// back reproduces them exactly (so edits made in UTF-8 can be carried back safely).
    @_spi(Fuzzing) public static func transcodeToUTF8Exactly(_ bytes: UnsafeBufferPointer<UInt8>, from encoding: HTMLEncoding) -> [UInt8]? {
        guard let utf8 = decodeToUTF8(bytes, from: encoding, strict: true) else { return nil }
        if encoding.kind == .utf8 { return utf8 }
        guard let back = transcodeFromUTF8(utf8, to: encoding), back.elementsEqual(bytes) else { return nil }
        return utf8
    }

    /// Converts UTF-8 `bytes` to `encoding` (real UTF-16 for UTF-16BE/LE), or nil when the input is not
    /// valid UTF-8 or holds a character the encoding cannot represent; nothing is replaced silently.
    static func transcodeFromUTF8(_ bytes: [UInt8], to encoding: HTMLEncoding) -> [UInt8]? {
        let valid = bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
        guard valid else { return nil }
        if encoding.kind == .utf8 { return bytes }
        return encodeScalars(String(decoding: bytes, as: UTF8.self).unicodeScalars, to: encoding, strict: true)
    }

    // MARK: - Decoding

    private static let replacementCharacterUTF8: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Decodes to UTF-8 bytes; in strict mode any decoding error returns nil instead of U+FFFD.
    static func decodeToUTF8(_ bytes: UnsafeBufferPointer<UInt8>, from encoding: HTMLEncoding, strict: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 2)
        switch encoding.kind {
        case .utf8:
            if strict { return UTF8Validation.isValid(bytes) ? Array(bytes) : nil }
            return Array(String(decoding: bytes, as: UTF8.self).utf8)
        case .utf16LE, .utf16BE:
            return decodeUTF16(bytes, bigEndian: encoding.kind == .utf16BE, strict: strict)
        case .singleByte(let index):
            let table = index.table
            for byte in bytes {
                if byte < 0x80 {
                    output.append(byte)
                } else if table[Int(byte) - 0x80] != 0 {
                    appendUTF8(table[Int(byte) - 0x80], to: &output)
                } else if strict {
                    return nil
                } else {
                    output += replacementCharacterUTF8
                }
            }
            return output
        case .xUserDefined:
            for byte in bytes {
                if byte < 0x80 { output.append(byte) } else { appendUTF8(0xF780 + UInt32(byte) - 0x80, to: &output) }
            }
            return output
        case .replacement:
            if strict { return bytes.isEmpty ? [] : nil }
            return bytes.isEmpty ? [] : replacementCharacterUTF8
        case .gbk, .gb18030, .big5, .eucJP, .iso2022JP, .shiftJIS, .eucKR:
            return decodeLegacy(bytes, from: encoding, strict: strict)
        }
    }

    private static func decodeUTF16(_ bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool, strict: Bool) -> [UInt8]? {
        if strict, bytes.count % 2 != 0 { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3 / 2)
        let unitCount = bytes.count / 2
        func unit(_ k: Int) -> UInt16 {
            let a = UInt16(bytes[2 * k]), b = UInt16(bytes[2 * k + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        var k = 0
        while k < unitCount {
            let u = unit(k)
            k += 1
            switch u {
            case 0xD800...0xDBFF:
                if k < unitCount, case let low = unit(k), low & 0xFC00 == 0xDC00 {
                    k += 1
                    appendUTF8(0x10000 + (UInt32(u - 0xD800) << 10) + UInt32(low - 0xDC00), to: &output)
                } else {
                    if strict { return nil }
                    output += replacementCharacterUTF8
                }
            case 0xDC00...0xDFFF:
                if strict { return nil }
                output += replacementCharacterUTF8
            default:
                appendUTF8(UInt32(u), to: &output)
            }
        }
        if bytes.count % 2 != 0 { output += replacementCharacterUTF8 }
        return output
    }

    private static func decodeLegacy(_ bytes: UnsafeBufferPointer<UInt8>, from encoding: HTMLEncoding, strict: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        guard let converter = LegacyRules.decoder(for: encoding.kind) else {
            // This platform's iconv lacks the encoding: keep ASCII, which is all markup needs.
            if strict { return nil }
            for byte in bytes {
                if byte < 0x80 { output.append(byte) } else { output += replacementCharacterUTF8 }
            }
            return output
        }
        var position = 0
        while position < bytes.count {
            let (consumed, failure) = converter.convert(UnsafeBufferPointer(rebasing: bytes[position...]),
                                                        appendingTo: &output)
            position += consumed
            guard failure != nil, position < bytes.count else { break }
            if let special = LegacyRules.specialDecoding(of: bytes[position], in: encoding.kind) {
                appendUTF8(special, to: &output)
                position += 1
                continue
            }
            if strict { return nil }
            output += replacementCharacterUTF8
            position += LegacyRules.errorLength(at: position, in: bytes, encoding: encoding)
        }
        converter.flush(appendingTo: &output)
        return output
    }

    // MARK: - Encoding

    /// Encodes scalars; an unrepresentable one becomes a decimal character reference, or makes the
    /// whole call return nil in strict mode.
    static func encodeScalars(_ scalars: String.UnicodeScalarView, to encoding: HTMLEncoding, strict: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(scalars.count)
        switch encoding.kind {
        case .utf8:
            return Array(String(scalars).utf8)
        case .utf16LE, .utf16BE:
            let bigEndian = encoding.kind == .utf16BE
            for unit in String(scalars).utf16 {
                let high = UInt8(unit >> 8), low = UInt8(unit & 0xFF)
                output += bigEndian ? [high, low] : [low, high]
            }
            return output
        case .replacement:
            return strict ? nil : Array(String(scalars).utf8)
        case .singleByte(let index):
            let table = index.table
            var reverse: [UInt32: UInt8] = [:]
            for (offset, codePoint) in table.enumerated() where codePoint != 0 && reverse[codePoint] == nil {
                reverse[codePoint] = UInt8(0x80 + offset)
            }
            for scalar in scalars {
                if scalar.value < 0x80 {
                    output.append(UInt8(scalar.value))
                } else if let byte = reverse[scalar.value] {
                    output.append(byte)
                } else if strict {
                    return nil
                } else {
                    appendCharacterReference(scalar, to: &output)
                }
            }
            return output
        case .xUserDefined:
            for scalar in scalars {
                if scalar.value < 0x80 {
                    output.append(UInt8(scalar.value))
                } else if scalar.value >= 0xF780, scalar.value <= 0xF7FF {
                    output.append(UInt8(scalar.value - 0xF780 + 0x80))
                } else if strict {
                    return nil
                } else {
                    appendCharacterReference(scalar, to: &output)
                }
            }
            return output
        case .iso2022JP:
            return encodeStateful(scalars, to: encoding, strict: strict)
        case .gbk, .gb18030, .big5, .eucJP, .shiftJIS, .eucKR:
            return encodeCharacterByCharacter(scalars, to: encoding, strict: strict)
        }
    }

    /// One iconv call per non-ASCII character, so that each result can be checked against what the
    /// Encoding Standard's encoder would produce (see ``LegacyRules/acceptsEncoded(_:in:)``).
    private static func encodeCharacterByCharacter(_ scalars: String.UnicodeScalarView, to encoding: HTMLEncoding,
                                                   strict: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(scalars.count * 2)
        let converter = LegacyRules.encoder(for: encoding.kind)
        var encoded: [UInt8] = []
        for original in scalars {
            var scalar = original
            if scalar.value < 0x80 {
                output.append(UInt8(scalar.value))
                continue
            }
            switch LegacyRules.specialEncoding(of: scalar, in: encoding.kind) {
            case .bytes(let bytes):
                output += bytes
                continue
            case .substitute(let substitute):
                scalar = substitute
            case .unmappable:
                if strict { return nil }
                appendCharacterReference(original, to: &output)
                continue
            case .none:
                break
            }
            encoded.removeAll(keepingCapacity: true)
            var ok = false
            if let converter {
                var utf8: [UInt8] = []
                appendUTF8(scalar.value, to: &utf8)
                let (_, failure) = utf8.withUnsafeBufferPointer { converter.convert($0, appendingTo: &encoded) }
                if failure == nil { converter.flush(appendingTo: &encoded) } else { converter.reset() }
                ok = failure == nil && LegacyRules.acceptsEncoded(encoded, in: encoding.kind)
            }
            if ok {
                output += encoded
            } else if strict {
                return nil
            } else {
                appendCharacterReference(original, to: &output)
            }
        }
        return output
    }

    /// ISO-2022-JP needs one converter over the whole text, because escape sequences carry state.
    private static func encodeStateful(_ scalars: String.UnicodeScalarView, to encoding: HTMLEncoding,
                                       strict: Bool) -> [UInt8]? {
        let input = Array(String(scalars).utf8)
        var output: [UInt8] = []
        guard let converter = LegacyRules.encoder(for: encoding.kind) else {
            if strict, input.contains(where: { $0 >= 0x80 }) { return nil }
            for scalar in scalars {
                if scalar.value < 0x80 { output.append(UInt8(scalar.value)) } else { appendCharacterReference(scalar, to: &output) }
            }
            return output
        }
        let succeeded: Bool = input.withUnsafeBufferPointer { buffer in
            var position = 0
            while position < buffer.count {
                let (consumed, failure) = converter.convert(UnsafeBufferPointer(rebasing: buffer[position...]),
                                                            appendingTo: &output)
                position += consumed
                guard failure != nil, position < buffer.count else { break }
                if strict { return false }
                let (scalar, length) = UTF8Validation.decodeScalar(at: position, in: buffer)
                // The reference is ASCII, so the encoder must first shift back to ASCII.
                converter.flush(appendingTo: &output)
                appendCharacterReference(scalar ?? "\u{FFFD}", to: &output)
                position += length
            }
            converter.flush(appendingTo: &output)
            return true
        }
        return succeeded ? output : nil
    }

    // MARK: - Helpers

    static func appendUTF8(_ value: UInt32, to output: inout [UInt8]) {
        switch value {
        case 0..<0x80:
            output.append(UInt8(value))
        case 0x80..<0x800:
            output += [UInt8(0xC0 | value >> 6), UInt8(0x80 | value & 0x3F)]
        case 0x800..<0x10000:
            output += [UInt8(0xE0 | value >> 12), UInt8(0x80 | value >> 6 & 0x3F), UInt8(0x80 | value & 0x3F)]
        default:
            output += [UInt8(0xF0 | value >> 18), UInt8(0x80 | value >> 12 & 0x3F),
                       UInt8(0x80 | value >> 6 & 0x3F), UInt8(0x80 | value & 0x3F)]
        }
    }

    private static func appendCharacterReference(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        output += Array("&#\(scalar.value);".utf8)
    }
}
