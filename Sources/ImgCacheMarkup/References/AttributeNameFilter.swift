/// Tells, from an attribute name's length and first letter alone, whether it can be one of a few
/// names: most of a tag's attributes (`class`, `id`, `width`, `alt`, …) are passed over without
/// being made into a string, compared or hashed.
struct AttributeNameFilter {
    /// For each first byte (ASCII letters folded), a bit per name length, lengths of 31 bytes and
    /// more sharing the last bit.
    private var lengthsByFirstByte = [UInt32](repeating: 0, count: 256)

    /// A filter that lets through `names` (lowercase) and any other name that shares a length and
    /// first letter with one of them.
    init(_ names: some Sequence<String>) {
        for name in names {
            guard let first = name.utf8.first else { continue }
            lengthsByFirstByte[Int(first.asciiLowercased)] |= Self.lengthBit(name.utf8.count)
        }
    }

    /// This filter, letting `names` through too.
    func adding(_ names: some Sequence<String>) -> AttributeNameFilter {
        var filter = self
        for name in names {
            guard let first = name.utf8.first else { continue }
            filter.lengthsByFirstByte[Int(first.asciiLowercased)] |= Self.lengthBit(name.utf8.count)
        }
        return filter
    }

    /// Whether the name spelled by `bytes` (in any ASCII case) may be one of the names.
    func mayMatch(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        return lengthsByFirstByte[Int(first.asciiLowercased)] & Self.lengthBit(bytes.count) != 0
    }

    private static func lengthBit(_ length: Int) -> UInt32 {
        1 << UInt32(min(length, 31))
    }
}
