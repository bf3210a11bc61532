import Foundation

/// A JSON value as the cache index reader needs it: numbers are kept as their text so that 64-bit
/// integers are read exactly.
package enum JSONValue {
    case object([String: JSONValue])
    case array
    case string(String)
    case number(Substring)
    case boolean
    case null

    package var string: String? { if case .string(let value) = self { value } else { nil } }
    package var int: Int? { if case .number(let text) = self { Int(text) } else { nil } }
    package var int64: Int64? { if case .number(let text) = self { Int64(text) } else { nil } }
    package var uint64: UInt64? { if case .number(let text) = self { UInt64(text) } else { nil } }
    package var double: Double? { if case .number(let text) = self { Double(text) } else { nil } }
}

extension Optional where Wrapped == JSONValue {
    /// For an optional string field: `.some(nil)` when absent or `null`, nil when of another type.
    package var optionalString: String?? {
        switch self {
        case nil: return .some(nil)
        case .string(let value)?: return .some(value)
        case .null?: return .some(nil)
        default: return nil
        }
    }
}

/// A strict RFC 8259 reader over bytes; nil for anything malformed.
package struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The single value the bytes hold, with nothing but whitespace around it.
    package mutating func document() -> JSONValue? {
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
        guard let end = Self.numberEnd(in: bytes[...], from: index) else { return nil }
        defer { index = end }
        return .number(Substring(decoding: bytes[index..<end], as: UTF8.self))
    }

    /// Where the JSON number starting at `start` ends (RFC 8259's grammar, leading zeros allowed),
    /// or nil when no number starts there.
    package static func numberEnd<Bytes: RandomAccessCollection>(in bytes: Bytes, from start: Int) -> Int?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = start
        func digits() -> Bool {
            let first = index
            while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index > first
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < bytes.endIndex, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        _ = take(UInt8(ascii: "-"))
        guard digits() else { return nil }
        if take(UInt8(ascii: ".")), !digits() { return nil }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard digits() else { return nil }
        }
        return index
    }

    /// A string starting at the opening quote; escapes decoded, invalid UTF-8 refused.
    private mutating func string() -> String? {
        index += 1
        // The usual case: plain ASCII up to the closing quote, nothing to decode or validate.
        var end = index
        while end < bytes.count, bytes[end] >= 0x20, bytes[end] < 0x80,
              bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
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
