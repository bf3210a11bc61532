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

    /// A key the code names: written as it is, since no name the code uses needs escaping.
    mutating func key(_ name: StaticString) {
        beginKey()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { utf8 in
            assert(utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") },
                   "a key that needs escaping")
            bytes.append(contentsOf: utf8)
        }
        bytes.append(UInt8(ascii: "\""))
        endKey()
    }

    /// A key from data (a URL, say), escaped as a string value is.
    mutating func key(escaping name: String) {
        beginKey()
        appendString(name)
        endKey()
    }

    private mutating func beginKey() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        newline()
    }

    private mutating func endKey() {
        if indented { bytes.append(UInt8(ascii: " ")) }
        bytes.append(UInt8(ascii: ":"))
        if indented { bytes.append(UInt8(ascii: " ")) }
    }

    mutating func field(_ name: StaticString, string value: String) {
        key(name)
        appendString(value)
    }

    /// A number or a literal (`true`, `false`, `null`), written as given.
    mutating func field(_ name: StaticString, number text: String) {
        key(name)
        bytes.append(contentsOf: text.utf8)
    }

    /// An integer in decimal, as `String(value)` writes it, without making that String.
    mutating func field(_ name: StaticString, integer value: some FixedWidthInteger) {
        key(name)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for UInt64.max's 20 digits, the last one first
        let count = withUnsafeMutableBytes(of: &digits) { buffer in
            var count = 0
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude != 0
            return count
        }
        withUnsafeBytes(of: &digits) { buffer in
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    private mutating func newline() {
        guard indented else { return }
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<2 * depth { bytes.append(UInt8(ascii: " ")) }
    }

    // Scanned and copied through the string's UTF-8 buffer: `String.UTF8View`'s iterator costs
    // several times more a byte, and a manifest or an index writes thousands of URLs.
    private mutating func appendString(_ value: String) {
        var value = value
        value.withUTF8 { appendEscaped($0) }
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (URLs, names, digests) need no escaping: copied in runs between escapes,
        // and looked at eight bytes at a time up to the first byte that may need one.
        var runStart = 0
        var clean = 0
        if let base = utf8.baseAddress {
            while clean + 8 <= utf8.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + clean).loadUnaligned(as: UInt64.self))
                if word.containsByte(below: 0x20) || word.containsByte(UInt8(ascii: "\"")) || word.containsByte(UInt8(ascii: "\\")) {
                    break
                }
                clean += 8
            }
        }
        for index in clean..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            appendEscape(of: byte)
            runStart = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(of byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}
