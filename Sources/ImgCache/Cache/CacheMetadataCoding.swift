import Foundation

/// How ``CacheEntryMetadata`` is written to and read from its JSON sidecar.
///
/// Dates are seconds since 1970 as a JSON number with its fractional part (sub-microsecond
/// precision), everywhere. Keys are sorted and the JSON indented so that two writes of the same
/// record are byte-identical and a person can read a sidecar.
///
/// Written and read by hand rather than with `JSONEncoder`/`JSONDecoder`: a warm run reads one
/// sidecar per image, and Foundation's generic coders spent most of that run's time on 2,000 of
/// them. The output is what `JSONEncoder` writes with `.prettyPrinted, .sortedKeys,
/// .withoutEscapingSlashes`, and the reader accepts any JSON object with these fields.
enum CacheMetadataCoding {
    static func encode(_ metadata: CacheEntryMetadata) throws -> [UInt8] {
        var out = JSONText()
        out.open()
        out.field("byteCount", number: String(metadata.byteCount))
        if let contentType = metadata.contentType { out.field("contentType", string: contentType) }
        if let etag = metadata.etag { out.field("etag", string: etag) }
        out.field("fetchedAt", number: seconds(metadata.fetchedAt))
        out.field("formatVersion", number: String(metadata.formatVersion))
        out.key("imageFile")
        out.open()
        out.field("inode", number: String(metadata.imageFile.inode))
        out.field("modifiedAtNanoseconds", number: String(metadata.imageFile.modifiedAtNanoseconds))
        out.field("size", number: String(metadata.imageFile.size))
        out.close()
        if let lastModified = metadata.lastModified { out.field("lastModified", string: lastModified) }
        out.field("lastUsedAt", number: seconds(metadata.lastUsedAt))
        out.field("localName", string: metadata.localName)
        out.field("sha256", string: metadata.sha256)
        out.field("url", string: metadata.url)
        out.close()
        return out.bytes
    }

    /// The record, or nil when the bytes are not a metadata record of the version this code
    /// writes (damaged, half-written by something other than this store, or from a future layout).
    static func decode(_ bytes: [UInt8]) -> CacheEntryMetadata? {
        var reader = JSONReader(bytes)
        guard case .object(let fields)? = reader.document(),
              let version = fields["formatVersion"]?.int, version == CacheEntryMetadata.currentFormatVersion,
              case .object(let file)? = fields["imageFile"],
              let size = file["size"]?.int, let modified = file["modifiedAtNanoseconds"]?.int64,
              let inode = file["inode"]?.uint64,
              let url = fields["url"]?.string, let localName = fields["localName"]?.string,
              let byteCount = fields["byteCount"]?.int, let sha256 = fields["sha256"]?.string,
              let fetchedAt = fields["fetchedAt"]?.double, let lastUsedAt = fields["lastUsedAt"]?.double,
              let contentType = fields["contentType"].optionalString,
              let etag = fields["etag"].optionalString,
              let lastModified = fields["lastModified"].optionalString
        else { return nil }
        return CacheEntryMetadata(
            formatVersion: version, url: url, localName: localName, contentType: contentType, byteCount: byteCount,
            sha256: sha256, etag: etag, lastModified: lastModified,
            fetchedAt: Date(timeIntervalSince1970: fetchedAt), lastUsedAt: Date(timeIntervalSince1970: lastUsedAt),
            imageFile: ImageFileFingerprint(size: size, modifiedAtNanoseconds: modified, inode: inode))
    }

    /// `date` as it will read back from JSON. A `Date` counts from 2001, JSON from 1970, and
    /// converting between the two can move the last bit; storing the converted value makes the
    /// metadata a store call returns equal to what a later lookup reads.
    static func storable(_ date: Date) -> Date {
        var value = date
        // Converting is idempotent after the first step; the second guards against the odd case.
        for _ in 0..<2 { value = Date(timeIntervalSince1970: value.timeIntervalSince1970) }
        return value
    }

    /// Seconds since 1970, shortest text that reads back as the same `Double`.
    private static func seconds(_ date: Date) -> String {
        let value = date.timeIntervalSince1970
        return value.isFinite ? "\(value)" : "0"
    }
}

/// Indented JSON text, two spaces per level, `"key" : value` as `JSONEncoder` spaces it.
private struct JSONText {
    var bytes: [UInt8] = []
    private var depth = 0
    private var first = true

    mutating func open() {
        bytes.append(UInt8(ascii: "{"))
        depth += 1
        first = true
    }

    mutating func close() {
        depth -= 1
        newline()
        bytes.append(UInt8(ascii: "}"))
        first = false
    }

    mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        newline()
        appendString(name)
        bytes += Array(" : ".utf8)
    }

    mutating func field(_ name: String, string value: String) {
        key(name)
        appendString(value)
    }

    mutating func field(_ name: String, number text: String) {
        key(name)
        bytes += Array(text.utf8)
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        bytes += repeatElement(UInt8(ascii: " "), count: 2 * depth)
    }

    private mutating func appendString(_ value: String) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20: bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A JSON value as the sidecar reader needs it: numbers are kept as their text so that 64-bit
/// integers are read exactly.
private enum JSONValue {
    case object([String: JSONValue])
    case array
    case string(String)
    case number(Substring)
    case boolean
    case null

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var int: Int? { if case .number(let text) = self { Int(text) } else { nil } }
    var int64: Int64? { if case .number(let text) = self { Int64(text) } else { nil } }
    var uint64: UInt64? { if case .number(let text) = self { UInt64(text) } else { nil } }
    var double: Double? { if case .number(let text) = self { Double(text) } else { nil } }
}

extension Optional where Wrapped == JSONValue {
    /// For an optional string field: `.some(nil)` when absent or `null`, nil when of another type.
    fileprivate var optionalString: String?? {
        switch self {
        case nil: return .some(nil)
        case .string(let value)?: return .some(value)
        case .null?: return .some(nil)
        default: return nil
        }
    }
}

/// A strict RFC 8259 reader over bytes; nil for anything malformed.
private struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The single value the bytes hold, with nothing but whitespace around it.
    mutating func document() -> JSONValue? {
        guard let value = value() else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    private mutating func value() -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .boolean)
        case UInt8(ascii: "f"): return literal("false", .boolean)
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func object() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth < 32 else { return nil }
        index += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = value() else { return nil }
            fields[key] = value
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { return nil }
            index += 1
            return .object(fields)
        }
    }

    private mutating func array() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth < 32 else { return nil }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array
        }
        while true {
            guard value() != nil else { return nil }
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "]") else { return nil }
            index += 1
            return .array
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    private mutating func number() -> JSONValue? {
        let start = index
        func digits() -> Bool {
            let first = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index > first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digits() else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return nil }
        }
        return .number(Substring(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// A string starting at the opening quote; escapes decoded, invalid UTF-8 refused.
    private mutating func string() -> String? {
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(bytes: out, encoding: .utf8)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { return nil }
                        index += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let character = Unicode.Scalar(scalar) else { return nil }
                    out += Array(String(Character(character)).utf8)
                default:
                    return nil
                }
            case 0..<0x20:
                return nil
            default:
                out.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }
}
