#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes all of `raw` to an open file; returns the `errno` of a failure, or 0.
package func writeAll(_ descriptor: Int32, _ raw: UnsafeRawBufferPointer) -> Int32 {
    var offset = 0
    while offset < raw.count {
        let count = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
        if count < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += count
    }
    return 0
}

