/// JSON text written by hand, for the files the cache and `fetch` write often. Indented: two
/// spaces per level, `"key" : value`, as `JSONEncoder` with `.prettyPrinted` spaces it; or compact,
/// on one line (the cache index's records). Strings escaped as `.withoutEscapingSlashes` does.
/// The caller writes keys in sorted order.
struct JSONText {
    var bytes: [UInt8] = []
    private let indented: Bool
    private var depth = 0
    private var first = true

    init(indented: Bool = true) {
        self.indented = indented
    }

    mutating func open() {
        bytes.append(UInt8(ascii: "{"))
        depth += 1
        first = true
    }

    mutating func close() {
        closeContainer(UInt8(ascii: "}"))
    }

    /// Starts an array; its elements are written with ``element()`` before each.
    mutating func openArray() {
        bytes.append(UInt8(ascii: "["))
        depth += 1
        first = true
    }

    mutating func closeArray() {
        closeContainer(UInt8(ascii: "]"))
    }

    /// Starts the next array element.
    mutating func element() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        newline()
    }

    mutating func string(_ value: String) {
        appendString(value)
    }

    private mutating func closeContainer(_ bracket: UInt8) {
        depth -= 1
        // An empty container is written `{}` / `[]`, as JSONEncoder does.
        if !first { newline() }
        bytes.append(bracket)
        first = false
    }

    mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        newline()
        appendString(name)
        if indented {
            bytes += [UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: " ")]
        } else {
            bytes.append(UInt8(ascii: ":"))
        }
    }

    mutating func field(_ name: String, string value: String) {
        key(name)
        appendString(value)
    }

    /// A number or a literal (`true`, `false`, `null`), written as given.
    mutating func field(_ name: String, number text: String) {
        key(name)
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func newline() {
        guard indented else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes += repeatElement(UInt8(ascii: " "), count: 2 * depth)
    }

    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (URLs, names, digests) need no escaping: copy them whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: value.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        let hex = Array("0123456789abcdef".utf8)
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
