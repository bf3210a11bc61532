import Testing
@_spi(Fuzzing) @testable import ImgCache
@testable import ImgCacheMarkup

@Suite("Encoding fuzz")
struct EncodingFuzzTests {
    private static let fragments: [[UInt8]] = [
        Array("<meta charset=\"gbk\">".utf8), Array("<meta http-equiv=content-type content='text/html;charset=sjis'>".utf8),
        Array("<!--".utf8), Array("-->".utf8), Array("&amp;".utf8), Array("&#x".utf8), Array("&#".utf8),
        Array("&copy=".utf8), Array("&NotEqualTilde;".utf8), Array("<?xml encoding='big5'?>".utf8),
        [0xEF, 0xBB, 0xBF], [0xFF, 0xFE], [0xFE, 0xFF], [0x1B, 0x24, 0x42], [0x1B, 0x28, 0x42],
        Array("中文".utf8), [0xD6, 0xD0], [0x83, 0x5C], [0x8F, 0xA1], [0x81, 0x30, 0x81, 0x30], [0xF4, 0x90],
    ]
    private static let transportLabels: [String?] = [nil, nil, "gbk", "shift_jis", "utf-16", "utf-16be", "bogus",
                                                     "iso-2022-jp", "x-user-defined", "iso-2022-kr", "\"utf-8\""]

    private static func randomBuffer(using generator: inout EncodingFuzzGenerator) -> [UInt8] {
        let length = Int.random(in: 0...300, using: &generator)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + 64)
        while bytes.count < length {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: bytes += fragments.randomElement(using: &generator)!
            case 1...3: bytes.append(UInt8.random(in: 0x20...0x7E, using: &generator))
            default: bytes.append(UInt8.random(in: 0...255, using: &generator))
            }
        }
        return bytes
    }

    private static func checkInvariants(_ text: DecodedText, rawCount: Int) {
        #expect(text.rawOffsets.count == text.scalars.count + 1)
        #expect(text.rawOffsets.last == rawCount)
        #expect(text.rawOffsets.first.map { $0 >= 0 } ?? false)
        #expect(zip(text.rawOffsets, text.rawOffsets.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func randomBuffersNeverCrash() async {
        await offPool {
            var generator = EncodingFuzzGenerator(seed: 0x1D_2024)
            let encodings = HTMLEncoding.allEncodings
            for round in 0..<10_000 {
                let bytes = Self.randomBuffer(using: &generator)
                let label = Self.transportLabels.randomElement(using: &generator)!
                bytes.withUnsafeBufferPointer { buffer in
                    let sniffed = EncodingSniffer.sniff(buffer, transportLabel: label)
                    #expect(sniffed.byteOrderMarkLength <= buffer.count)
                    _ = MetaCharsetPrescan.prescan(buffer)
                    let body = UnsafeBufferPointer(rebasing: buffer[sniffed.byteOrderMarkLength...])
                    let sniffedText = DecodedText.decode(body, encoding: sniffed.encoding, characterReferences: true)
                    Self.checkInvariants(sniffedText, rawCount: body.count)
                    let other = encodings[round % encodings.count]
                    let otherText = DecodedText.decode(buffer, encoding: other, characterReferences: round % 2 == 0)
                    Self.checkInvariants(otherText, rawCount: buffer.count)
                    let decoded = TextCodec.decode(buffer, from: other)
                    if round % 10 == 0 {
                        _ = TextCodec.encode(decoded, to: other)
                        _ = TextCodec.transcodeToUTF8Exactly(buffer, from: other)
                    }
                    var i = 0
                    while i < buffer.count {
                        let length = other.characterLength(at: i, in: buffer)
                        #expect(length >= 1 && i + length <= buffer.count)
                        i += length
                    }
                }
            }
        }
    }

    @Test func legacyDecodersAgreeWithWholeBufferDecoding() async {
        await offPool {
            // DecodedText decodes character by character; TextCodec decodes whole buffers. Both must
            // give the same text for the same bytes, or offsets would point at the wrong characters.
            var generator = EncodingFuzzGenerator(seed: 42)
            let labels = ["gbk", "gb18030", "big5", "shift_jis", "euc-jp", "euc-kr", "windows-1252", "koi8-u", "utf-8"]
            for round in 0..<2_000 {
                let encoding = HTMLEncoding(label: labels[round % labels.count])!
                let bytes = Self.randomBuffer(using: &generator)
                bytes.withUnsafeBufferPointer { buffer in
                    let whole = TextCodec.decode(buffer, from: encoding)
                    let pieces = DecodedText.decode(buffer, encoding: encoding, characterReferences: false).string
                    #expect(whole == pieces, "\(encoding) \(bytes)")
                }
            }
        }
    }
}
