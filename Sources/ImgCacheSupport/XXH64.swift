/// XXH64, the 64-bit xxHash of Yann Collet (the algorithm as its specification,
/// `doc/xxhash_spec.md` of Cyan4973/xxHash, gives it; seed 0).
///
/// Written here because no package in reach offers it. It reads four lanes of eight bytes per
/// step, so it costs a fraction of a SHA-256 of the same bytes even where the CPU has SHA
/// instructions (figures in the commit that brought it).
package enum XXH64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    /// The hash of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The hash of the bytes in `buffer`.
    package static func hash(_ buffer: UnsafeRawBufferPointer) -> UInt64 {
        let count = buffer.count
        var offset = 0
        var hash: UInt64
        if count >= 32 {
            var lane1 = prime1 &+ prime2
            var lane2 = prime2
            var lane3: UInt64 = 0
            var lane4 = 0 &- prime1
            while offset <= count - 32 {
                lane1 = round(lane1, word(buffer, offset))
                lane2 = round(lane2, word(buffer, offset + 8))
                lane3 = round(lane3, word(buffer, offset + 16))
                lane4 = round(lane4, word(buffer, offset + 24))
                offset += 32
            }
            hash = lane1.rotatedLeft(1) &+ lane2.rotatedLeft(7) &+ lane3.rotatedLeft(12) &+ lane4.rotatedLeft(18)
            hash = merge(hash, lane1)
            hash = merge(hash, lane2)
            hash = merge(hash, lane3)
            hash = merge(hash, lane4)
        } else {
            hash = prime5
        }
        hash &+= UInt64(count)
        while offset + 8 <= count {
            hash ^= round(0, word(buffer, offset))
            hash = hash.rotatedLeft(27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= count {
            hash ^= UInt64(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) &* prime1
            hash = hash.rotatedLeft(23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            hash ^= UInt64(buffer[offset]) &* prime5
            hash = hash.rotatedLeft(11) &* prime1
            offset += 1
        }
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        hash ^= hash >> 32
        return hash
    }

    @inline(__always)
    private static func word(_ buffer: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        (accumulator &+ input &* prime2).rotatedLeft(31) &* prime1
    }

    @inline(__always)
    private static func merge(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        (accumulator ^ round(0, lane)) &* prime1 &+ prime4
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
