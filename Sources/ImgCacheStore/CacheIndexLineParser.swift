import Foundation
import ImgCacheSupport

/// Reads an index line exactly as ``CacheIndexRecord/encoded()`` writes it — one flat JSON object,
/// no whitespace, ASCII strings — without building a dictionary per line: a warm run reads
/// thousands of them. Anything else (whitespace, unknown or repeated keys, `\u` escapes,
/// non-ASCII) gets nil, and ``CacheIndexRecord/decode(_:)`` then reads the line with the general
/// JSON reader, so this is only ever a faster way to the same answer.
///
/// It reads the line's bytes through a buffer pointer: through the array slice's bounds-checked
/// subscript, each string and key cost several times more.
package struct CacheIndexLineParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int

    package static func parse(_ line: ArraySlice<UInt8>) -> CacheIndexRecord? {
        line.withUnsafeBufferPointer { buffer in
            var parser = CacheIndexLineParser(bytes: buffer, index: 0)
            guard let record = parser.record(), parser.index == buffer.count else { return nil }
            return record
        }
    }

    /// The keys a record may have; each one's bit marks it seen.
    private enum Key: Int {
        case byteCount, contentType, etag, fetchedAt, formatVersion, imageFile, lastModified, lastUsedAt
        case localName, sha256, xxh64, url, removed, used
        case inode, modifiedAtNanoseconds, size

        /// Each key's name, by raw value.
        static let names: [[UInt8]] = [
            "byteCount", "contentType", "etag", "fetchedAt", "formatVersion", "imageFile", "lastModified",
            "lastUsedAt", "localName", "sha256", "xxh64", "url", "removed", "used", "inode", "modifiedAtNanoseconds", "size",
        ].map { Array($0.utf8) }

        /// The key these bytes name: compared as bytes, since making a `String` of each of a
        /// line's dozen keys cost more than the rest of reading it.
        init?(name: UnsafeBufferPointer<UInt8>) {
            for (rawValue, candidate) in Self.names.enumerated() where candidate.count == name.count {
                let matches = candidate.withUnsafeBufferPointer { memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }
                if matches { self.init(rawValue: rawValue); return }
            }
            return nil
        }

        var bit: Int { 1 << rawValue }
    }

    private mutating func record() -> CacheIndexRecord? {
        var seen = 0
        var (url, localName, removed, used): (String?, String?, String?, String?)
        var checksum: ContentChecksum?
        var (contentType, etag, lastModified): (String?, String?, String?)
        var (byteCount, formatVersion): (Int?, Int?)
        var (fetchedAt, lastUsedAt): (Double?, Double?)
        var file: ImageFileFingerprint?
        guard take(UInt8(ascii: "{")) else { return nil }
        repeat {
            guard let key = key(), seen & key.bit == 0, take(UInt8(ascii: ":")) else { return nil }
            seen |= key.bit
            switch key {
            case .byteCount: byteCount = number()?.integer(as: Int.self)
            case .formatVersion: formatVersion = number()?.integer(as: Int.self)
            case .fetchedAt: fetchedAt = number()?.double
            case .lastUsedAt: lastUsedAt = number()?.double
            case .contentType: guard optionalString(into: &contentType) else { return nil }
            case .etag: guard optionalString(into: &etag) else { return nil }
            case .lastModified: guard optionalString(into: &lastModified) else { return nil }
            case .url: url = string()
            case .localName: localName = string()
            case .sha256: checksum = string().map { .sha256($0) }
            case .xxh64: checksum = xxh64()
            case .removed: removed = string()
            case .used: used = string()
            case .imageFile: file = imageFile()
            case .inode, .modifiedAtNanoseconds, .size: return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }

        if seen == Key.removed.bit, let removed {
            return .removed(localName: removed)
        }
        if seen == Key.used.bit | Key.lastUsedAt.bit, let used, let lastUsedAt {
            return .used(localName: used, at: Date(timeIntervalSince1970: lastUsedAt))
        }
        guard seen & (Key.removed.bit | Key.used.bit) == 0, seen & (Key.sha256.bit | Key.xxh64.bit) != Key.sha256.bit | Key.xxh64.bit,
              formatVersion == CacheEntryMetadata.currentFormatVersion,
              let file, let url, let localName, let checksum, let byteCount, let fetchedAt, let lastUsedAt else { return nil }
        return .entry(CacheEntryMetadata(
            url: url, localName: localName, contentType: contentType, byteCount: byteCount,
            checksum: checksum, etag: etag, lastModified: lastModified,
            fetchedAt: Date(timeIntervalSince1970: fetchedAt), lastUsedAt: Date(timeIntervalSince1970: lastUsedAt),
            imageFile: file))
    }

    /// An XXH64's string of 16 lowercase hex digits, read without making a `String` of it; nil
    /// for anything else.
    private mutating func xxh64() -> ContentChecksum? {
        guard take(UInt8(ascii: "\"")), index + 17 <= bytes.count, bytes[index + 16] == UInt8(ascii: "\""),
              let checksum = ContentChecksum(xxh64Hex: bytes[index..<(index + 16)]) else { return nil }
        index += 17
        return checksum
    }

    /// A string or `null` into `value`; false for anything else.
    private mutating func optionalString(into value: inout String?) -> Bool {
        if takeNull() { return true }
        guard let string = string() else { return false }
        value = string
        return true
    }

    private mutating func imageFile() -> ImageFileFingerprint? {
        var seen = 0
        var (size, modified, inode): (Int?, Int64?, UInt64?)
        guard take(UInt8(ascii: "{")) else { return nil }
        repeat {
            guard let key = key(), seen & key.bit == 0, take(UInt8(ascii: ":")), let value = number() else { return nil }
            seen |= key.bit
            switch key {
            case .size: size = value.integer(as: Int.self)
            case .modifiedAtNanoseconds: modified = value.integer(as: Int64.self)
            case .inode: inode = value.integer(as: UInt64.self)
            default: return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let size, let modified, let inode else { return nil }
        return ImageFileFingerprint(size: size, modifiedAtNanoseconds: modified, inode: inode)
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func takeNull() -> Bool {
        guard bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
              bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l") else { return false }
        index += 4
        return true
    }

    /// A number as JSON writes it, its digits read as they are scanned.
    private mutating func number() -> Number? {
        let start = index
        var number = Number()
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            number.isNegative = true
            index += 1
        }
        func digits() -> Int {
            let first = index
            while index < bytes.count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
                // Past 19 digits the value is not kept: only the text serves then.
                if number.digitCount < 19 { number.digits = number.digits &* 10 &+ UInt64(digit) }
                number.digitCount += 1
                index += 1
            }
            return index - first
        }
        guard digits() > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fraction = digits()
            guard fraction > 0 else { return nil }
            number.fractionDigits = fraction
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            // Not what the writer writes: the grammar's own reading, and the text alone.
            guard let end = JSONReader.numberEnd(in: bytes, from: start) else { return nil }
            index = end
            number.hasExponent = true
        }
        number.bytes = text(start..<index)
        return number
    }

    /// A number read by ``number()``: its text, and for the plain ones the writer writes (an
    /// integer, or a few decimals) its digits, from which its value is made exactly as the
    /// standard library's reading of the text makes it, without that reading (costly for a
    /// date, and a record holds two).
    private struct Number {
        /// The number's text, in the line being read.
        var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var isNegative = false
        /// The digits without the point, while there are at most 19 of them.
        var digits: UInt64 = 0
        var digitCount = 0
        /// How many digits follow the point; nil without one.
        var fractionDigits: Int?
        var hasExponent = false

        /// `Value(text)`: nil for a fraction, an exponent or a value out of range.
        func integer<Value: FixedWidthInteger>(as _: Value.Type) -> Value? {
            guard fractionDigits == nil, !hasExponent, digitCount <= 18, !(isNegative && !Value.isSigned) else {
                return Value(text)
            }
            // At most 18 digits: below 10^18, within Int64 and UInt64 either way.
            return isNegative ? Value(exactly: -Int64(digits)) : Value(exactly: digits)
        }

        /// `Double(text)`. With at most 15 digits the digits are a Double exactly, as is ten to
        /// the power of at most 22, and one IEEE division rounds their quotient once, to the
        /// Double nearest the decimal value, which is what a correct reading gives.
        var double: Double? {
            let scale = fractionDigits ?? 0
            guard !hasExponent, digitCount <= 15, scale < Self.powersOfTen.count else { return Double(text) }
            let magnitude = Double(digits) / Self.powersOfTen[scale]
            return isNegative ? -magnitude : magnitude
        }

        /// The text, made only when the digits alone do not give the value.
        private var text: Substring { Substring(decoding: bytes, as: UTF8.self) }

        private static let powersOfTen: [Double] = (0...22).map { exponent in
            (0..<exponent).reduce(1.0) { value, _ in value * 10 }
        }
    }

    /// A key: a string without escapes naming one of ``Key``'s.
    private mutating func key() -> Key? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        return Key(name: text(start..<(index - 1)))
    }

    private func text(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    /// An ASCII string with the escapes the writer uses; nil for anything else.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        // The usual case: plain ASCII up to the closing quote, made a string in one copy. Looked
        // at eight bytes at a time until a word holds something else.
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
            guard word.isASCII, !word.containsByte(below: 0x20), !word.containsByte(UInt8(ascii: "\"")),
                  !word.containsByte(UInt8(ascii: "\\")) else { break }
            index += 8
        }
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x80,
              bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: text(start..<(index - 1)), as: UTF8.self)
        }
        var unescaped: [UInt8]?
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return unescaped.map { String(decoding: $0, as: UTF8.self) }
                    ?? String(decoding: text(start..<(index - 1)), as: UTF8.self)
            case UInt8(ascii: "\\"):
                if unescaped == nil { unescaped = Array(text(start..<(index - 1))) }
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped?.append(escape)
                case UInt8(ascii: "n"): unescaped?.append(0x0A)
                case UInt8(ascii: "r"): unescaped?.append(0x0D)
                case UInt8(ascii: "t"): unescaped?.append(0x09)
                case UInt8(ascii: "b"): unescaped?.append(0x08)
                case UInt8(ascii: "f"): unescaped?.append(0x0C)
                default: return nil
                }
            case 0x20..<0x80:
                unescaped?.append(byte)
            default:
                return nil
            }
        }
        return nil
    }
}
