/// JSON text written by hand, for the files the cache and `fetch` write often. Indented: two
/// spaces per level, `"key" : value`, as `JSONEncoder` with `.prettyPrinted` spaces it; or compact,
/// on one line (the cache index's records). Strings escaped as `.withoutEscapingSlashes` does.
/// The caller writes keys in sorted order.
///
/// The text is written into memory of its own rather than an `[UInt8]`: each `Array.append`
/// checks uniqueness and capacity, and `append(contentsOf:)` has a fixed cost however short the
/// bytes, which made each key and its punctuation costly (a manifest or an index record is
/// mostly keys). Noncopyable, so that the memory has one owner. `@inlinable` where a manifest
/// or an index record is written: called from the layers above, each key and value was a call
/// (a fifth more time to write a 2,000-image manifest).
package struct JSONText: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// How many bytes are written.
    @usableFromInline package internal(set) var count = 0
    @usableFromInline let indented: Bool
    @usableFromInline var depth = 0
    @usableFromInline var first = true

    package init(indented: Bool = true, capacity: Int = 512) {
        self.indented = indented
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// The text written so far.
    package var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Hands `body` the text written so far.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Forgets the text written so far (what comes next goes on where it ends), keeping the memory.
    package mutating func removeAll() {
        count = 0
    }

    /// One byte, as it is.
    @inlinable package mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inlinable package mutating func open() {
        append(UInt8(ascii: "{"))
        depth += 1
        first = true
    }

    @inlinable package mutating func close() {
        closeContainer(UInt8(ascii: "}"))
    }

    /// Starts an array; its elements are written with ``element()`` before each.
    @inlinable package mutating func openArray() {
        append(UInt8(ascii: "["))
        depth += 1
        first = true
    }

    @inlinable package mutating func closeArray() {
        closeContainer(UInt8(ascii: "]"))
    }

    /// Starts the next array element.
    @inlinable package mutating func element() {
        reserve(separatorRoom)
        writeSeparator()
    }

    @inlinable package mutating func string(_ value: String) {
        value.withUTF8Bytes { utf8 in
            let clean = Self.cleanPrefixLength(utf8)
            guard clean == utf8.count, let source = utf8.baseAddress else { return appendEscaped(utf8, cleanPrefix: clean) }
            // The usual case, nothing to escape: quotes and bytes with one check of the room.
            reserve(utf8.count + 2)
            base[count] = UInt8(ascii: "\"")
            (base + count + 1).initialize(from: source, count: utf8.count)
            base[count + 1 + utf8.count] = UInt8(ascii: "\"")
            count += utf8.count + 2
        }
    }

    @inlinable mutating func closeContainer(_ bracket: UInt8) {
        depth -= 1
        // An empty container is written `{}` / `[]`, as JSONEncoder does.
        if !first { newline() }
        append(bracket)
        first = false
    }

    /// A key the code names: written as it is, since no name the code uses needs escaping.
    @inlinable package mutating func key(_ name: StaticString) {
        name.withUTF8Buffer { utf8 in
            assert(utf8.allSatisfy { !Self.needsEscape($0) }, "a key that needs escaping")
            appendKey(utf8)
        }
    }

    /// A key from data (a URL, say), escaped as a string value is.
    @inlinable package mutating func key(escaping name: String) {
        name.withUTF8Bytes { utf8 in
            let clean = Self.cleanPrefixLength(utf8)
            if clean == utf8.count { return appendKey(utf8) }
            reserve(separatorRoom)
            writeSeparator()
            appendEscaped(utf8, cleanPrefix: clean)
            reserve(colonRoom)
            writeColon()
        }
    }

    @inlinable package mutating func field(_ name: StaticString, string value: String) {
        key(name)
        string(value)
    }

    /// A number or a literal (`true`, `false`, `null`), written as given.
    @inlinable package mutating func field(_ name: StaticString, number text: String) {
        key(name)
        text.withUTF8Bytes { appendRaw($0) }
    }

    /// An integer in decimal, as `String(value)` writes it, without making that String.
    @inlinable package mutating func field(_ name: StaticString, integer value: some FixedWidthInteger) {
        key(name)
        var magnitude = UInt64(value.magnitude)
        reserve(21)  // a sign and UInt64.max's 20 digits
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude != 0
        if value < 0 { append(UInt8(ascii: "-")) }
        magnitude = UInt64(value.magnitude)
        for position in stride(from: count + digits - 1, through: count, by: -1) {
            base[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
        count += digits
    }

    // MARK: Writing

    /// Room for `more` bytes after the text, growing the memory to twice its size (or more) when short.
    @inlinable mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        grow(toHold: more)
    }

    @usableFromInline mutating func grow(toHold more: Int) {
        let grown = max(2 * capacity, count + more)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.initialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity = grown
    }

    @inlinable mutating func appendRaw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// The separator, indentation, `"name"` and colon of a key whose name needs no escaping, with
    /// one check of the room: a manifest is mostly keys.
    @inlinable mutating func appendKey(_ name: UnsafeBufferPointer<UInt8>) {
        reserve(separatorRoom + name.count + 2 + colonRoom)
        writeSeparator()
        base[count] = UInt8(ascii: "\"")
        if let source = name.baseAddress { (base + count + 1).initialize(from: source, count: name.count) }
        count += 1 + name.count
        base[count] = UInt8(ascii: "\"")
        count += 1
        writeColon()
    }

    @inlinable mutating func newline() {
        reserve(1 + 2 * depth)
        writeNewline()
    }

    // The writers below take the room they need as given: their callers reserve it, once for
    // all they write.

    /// The most ``writeSeparator()`` writes.
    @inlinable var separatorRoom: Int { 2 + 2 * depth }
    /// What ``writeColon()`` writes.
    @inlinable var colonRoom: Int { indented ? 3 : 1 }

    /// The comma before every member but the first, then the line break and indentation.
    @inlinable @inline(__always)
    mutating func writeSeparator() {
        if !first {
            base[count] = UInt8(ascii: ",")
            count += 1
        }
        first = false
        writeNewline()
    }

    @inlinable @inline(__always)
    mutating func writeNewline() {
        guard indented else { return }
        let indentation = 2 * depth
        base[count] = UInt8(ascii: "\n")
        (base + count + 1).initialize(repeating: UInt8(ascii: " "), count: indentation)
        count += 1 + indentation
    }

    @inlinable @inline(__always)
    mutating func writeColon() {
        if indented {
            base[count] = UInt8(ascii: " ")
            base[count + 1] = UInt8(ascii: ":")
            base[count + 2] = UInt8(ascii: " ")
            count += 3
        } else {
            base[count] = UInt8(ascii: ":")
            count += 1
        }
    }

    /// How many bytes from the start of `utf8` need no escaping: looked at eight at a time, since
    /// most strings (URLs, names, digests) need none.
    @inlinable static func cleanPrefixLength(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        guard let start = utf8.baseAddress else { return 0 }
        var clean = 0
        while clean + 8 <= utf8.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(start + clean).loadUnaligned(as: UInt64.self))
            if word.containsByte(below: 0x20) || word.containsByte(UInt8(ascii: "\"")) || word.containsByte(UInt8(ascii: "\\")) {
                break
            }
            clean += 8
        }
        while clean < utf8.count, !needsEscape(utf8[clean]) { clean += 1 }
        return clean
    }

    @inlinable static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// `utf8` quoted, escaped where it must be; its first `cleanPrefix` bytes need no escape.
    @usableFromInline mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, cleanPrefix: Int) {
        append(UInt8(ascii: "\""))
        // Copied in runs between escapes.
        var runStart = 0
        for index in cleanPrefix..<utf8.count where Self.needsEscape(utf8[index]) {
            appendRaw(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            appendEscape(of: utf8[index])
            runStart = index + 1
        }
        appendRaw(UnsafeBufferPointer(rebasing: utf8[runStart...]))
        append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(of byte: UInt8) {
        append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): append(UInt8(ascii: "\\"))
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        case 0x08: append(UInt8(ascii: "b"))
        case 0x0C: append(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            append(UInt8(ascii: "u"))
            append(UInt8(ascii: "0"))
            append(UInt8(ascii: "0"))
            append(hex.utf8Start[Int(byte >> 4)])
            append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}
