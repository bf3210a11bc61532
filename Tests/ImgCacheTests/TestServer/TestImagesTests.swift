import ImgCacheTestServer
import Testing

/// Independent PNG checks (own CRC-32 / Adler-32, own chunk walk).
private enum PNGCheck {
    struct Chunk {
        var type: String
        var data: [UInt8]
        var crcOK: Bool
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    static func be32(_ b: ArraySlice<UInt8>) -> UInt32 {
        b.reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func chunks(_ png: [UInt8]) -> [Chunk]? {
        var i = 8
        var out: [Chunk] = []
        while i + 12 <= png.count {
            let length = Int(be32(png[i..<i + 4]))
            guard i + 12 + length <= png.count else { return nil }
            let typeAndData = Array(png[(i + 4)..<(i + 8 + length)])
            let crc = be32(png[(i + 8 + length)..<(i + 12 + length)])
            out.append(Chunk(
                type: String(decoding: typeAndData.prefix(4), as: UTF8.self),
                data: Array(typeAndData.dropFirst(4)),
                crcOK: crc32(typeAndData) == crc))
            i += 12 + length
        }
        return i == png.count ? out : nil
    }

    /// Inflates zlib made of stored blocks only.
    static func inflateStored(_ z: [UInt8]) -> [UInt8]? {
        guard z.count >= 6, (UInt16(z[0]) << 8 | UInt16(z[1])) % 31 == 0, z[0] & 0x0F == 8 else { return nil }
        var i = 2
        var out: [UInt8] = []
        while true {
            guard i + 5 <= z.count else { return nil }
            let header = z[i]
            guard header & 0b110 == 0 else { return nil }  // stored
            let len = Int(z[i + 1]) | Int(z[i + 2]) << 8
            let nlen = Int(z[i + 3]) | Int(z[i + 4]) << 8
            guard len == (~nlen & 0xFFFF), i + 5 + len <= z.count else { return nil }
            out += z[(i + 5)..<(i + 5 + len)]
            i += 5 + len
            if header & 1 == 1 { break }
        }
        guard i + 4 == z.count else { return nil }
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in out {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return be32(z[i..<(i + 4)]) == (b << 16 | a) ? out : nil
    }
}

@Suite("TestImages")
struct TestImagesTests {
    @Test(arguments: [(1, 1), (3, 2), (64, 48), (300, 300)])
    func pngIsWellFormed(size: (Int, Int)) throws {
        let (width, height) = size
        let png = TestImages.png(width: width, height: height)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let chunks = try #require(PNGCheck.chunks(png))
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(chunks.allSatisfy { $0.crcOK })
        let ihdr = chunks[0].data
        #expect(ihdr.count == 13)
        #expect(PNGCheck.be32(ihdr[0..<4]) == UInt32(width))
        #expect(PNGCheck.be32(ihdr[4..<8]) == UInt32(height))
        #expect(Array(ihdr[8...]) == [8, 2, 0, 0, 0])
        let raw = try #require(PNGCheck.inflateStored(chunks[1].data))
        #expect(raw.count == height * (1 + 3 * width))
        #expect(stride(from: 0, to: raw.count, by: 1 + 3 * width).allSatisfy { raw[$0] == 0 })
    }

    @Test(arguments: [92, 100, 1_000, 100_000, 2_000_000])
    func paddedPNGHasExactSize(byteCount: Int) throws {
        let png = TestImages.png(byteCount: byteCount)
        #expect(png.count == byteCount)
        let chunks = try #require(PNGCheck.chunks(png))
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "tEXt", "IEND"])
        #expect(chunks.allSatisfy { $0.crcOK })
        #expect(chunks[2].data.starts(with: Array("Comment".utf8) + [0]))
        #expect(PNGCheck.inflateStored(chunks[1].data) != nil)
    }

    @Test func paddedPNGMinimum() {
        #expect(TestImages.minimumPNGByteCount() == 92)
        #expect(TestImages.png(byteCount: 5_000, width: 10, height: 10).count == 5_000)
    }

    @Test func gifIsGIF89a() {
        let gif = TestImages.gif()
        #expect(gif.starts(with: Array("GIF89a".utf8)))
        #expect(gif[6] == 1 && gif[7] == 0 && gif[8] == 1 && gif[9] == 0)  // 1×1
        #expect(gif.last == 0x3B)
    }

    @Test func jpegIsBaseline() {
        let jpeg = TestImages.jpeg()
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(jpeg.suffix(2).elementsEqual([0xFF, 0xD9]))
        // Has a baseline SOF0 marker for 8×8, 3 components.
        let sof0 = (0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }
        let at = try! #require(sof0)
        #expect(Array(jpeg[(at + 4)...(at + 9)]) == [8, 0, 8, 0, 8, 3])
    }
}
