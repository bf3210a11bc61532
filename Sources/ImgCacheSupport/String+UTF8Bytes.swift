// `@inlinable`: the layers above call these for every string they read as bytes, from other modules, where a call that is
// not inlined (and a generic one not specialised) costs more than the work itself.
extension String {
    /// Hands `body` the string's UTF-8 bytes, in place when they are stored contiguously (every
    /// native string), through a contiguous copy otherwise (a bridged one).
    ///
    /// `String.withUTF8` needs a `var`, and copying a `let` into one retains the string and
    /// releases it after: about one in six of the reference counting operations of rewriting a
    /// page of long `srcset`s, where every URL's bytes are read this way several times.
    @inlinable @inline(__always)
    package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
