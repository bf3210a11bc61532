// `@inlinable`: the layers above call these for every header and attribute name they compare, from other modules, where a call that is
// not inlined (and a generic one not specialised) costs more than the work itself.
extension String {
    /// Whether the two are equal once ASCII letters are folded to lower case, as HTTP compares
    /// header names and URL schemes: without the two lowercased copies `lowercased()` would make.
    @inlinable package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.count == other.utf8.count && hasPrefixIgnoringASCIICase(other)
    }

    /// Whether it starts with `prefix`, ASCII letters compared regardless of case.
    @inlinable package func hasPrefixIgnoringASCIICase(_ prefix: String) -> Bool {
        // Over the two strings' UTF-8 buffers: `String.UTF8View`'s iterator costs several times
        // more a byte, and every response's headers are looked up this way.
        withUTF8Bytes { own in
            prefix.withUTF8Bytes { own.starts(with: $0) { $0.asciiLowercased == $1.asciiLowercased } }
        }
    }
}
