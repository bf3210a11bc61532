#if CommandLine
import NIOCore

/// The body of ``Behaviour/stream(prefix:length:declaresLength:chunkSize:interval:)``, made up piece
/// by piece: the prefix, then chunks of filler until `length` bytes (for ever when nil). Every
/// chunk is a slice of one buffer, so a 200 MB body costs the server one chunk of memory.
struct GeneratedBody {
    private var prefix: [UInt8]?
    private var remaining: Int?
    private let filler: ByteBuffer

    init(prefix: [UInt8], length: Int?, chunkSize: Int) {
        self.prefix = prefix.isEmpty ? nil : Array(prefix.prefix(length ?? prefix.count))
        self.remaining = length.map { max(0, $0 - min($0, prefix.count)) }
        self.filler = ByteBuffer(repeating: 0x42, count: max(1, chunkSize))
    }

    /// The next piece, or nil once `length` bytes have been handed out.
    mutating func next() -> ByteBuffer? {
        if let prefix {
            self.prefix = nil
            return ByteBuffer(bytes: prefix)
        }
        guard let remaining else { return filler }
        guard remaining > 0 else { return nil }
        let count = min(remaining, filler.readableBytes)
        self.remaining = remaining - count
        return filler.getSlice(at: filler.readerIndex, length: count)
    }
}
#endif
