#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open iconv conversion descriptor.
///
/// iconv_t carries conversion state and is not thread-safe, so a converter is created for one
/// decode or encode call and never shared; that is also why this class is deliberately not Sendable.
final class IconvConverter {
    private let descriptor: iconv_t

    /// Opens a converter between the first pair of names this platform's iconv knows; names differ
    /// between glibc and the libiconv of Apple platforms, hence the lists.
    init?(from sources: [String], to targets: [String]) {
        for source in sources {
            for target in targets {
                let descriptor = iconv_open(target, source)
                if let descriptor, Int(bitPattern: descriptor) != -1 {
                    self.descriptor = descriptor
                    return
                }
            }
        }
        return nil
    }

    deinit {
        iconv_close(descriptor)
    }

    /// Why a conversion stopped early.
    enum Failure: Equatable {
        /// The input holds a sequence that is invalid or has no mapping in the target.
        case invalid
        /// The input ends inside a character.
        case incomplete
    }

    /// Converts `input`, appending the result to `output`, until the end or the first failure.
    /// Returns how many input bytes were consumed and, if it stopped early, why.
    func convert(_ input: UnsafeBufferPointer<UInt8>, appendingTo output: inout [UInt8]) -> (consumed: Int, failure: Failure?) {
        guard let base = input.baseAddress, !input.isEmpty else { return (0, nil) }
        var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: base)
            .assumingMemoryBound(to: CChar.self)
        var inLeft = input.count
        let capacity = 4096
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { chunk in
            while true {
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(chunk.baseAddress!)
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = capacity
                let result = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                let error = errno
                output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<(capacity - outLeft)]))
                let consumed = input.count - inLeft
                if Int(bitPattern: UInt(bitPattern: result)) != -1 { return (consumed, nil) }
                switch error {
                case E2BIG: continue
                case EINVAL: return (consumed, .incomplete)
                default:
                    // EILSEQ, or an error iconv should not raise: both mean "cannot convert here".
                    return (consumed, .invalid)
                }
            }
        }
    }

    /// Writes whatever the converter still holds (a pending character, or the escape sequence that
    /// returns a stateful encoding such as ISO-2022-JP to ASCII) and resets its state.
    func flush(appendingTo output: inout [UInt8]) {
        let capacity = 64
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { chunk in
            var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(chunk.baseAddress!)
                .assumingMemoryBound(to: CChar.self)
            var outLeft = capacity
            _ = iconv(descriptor, nil, nil, &outPointer, &outLeft)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<(capacity - outLeft)]))
        }
    }

    /// Drops any state without writing it.
    func reset() {
        _ = iconv(descriptor, nil, nil, nil, nil)
    }
}
