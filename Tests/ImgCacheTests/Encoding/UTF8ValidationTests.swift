import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("UTF8Validation")
struct UTF8ValidationTests {
    private func firstInvalid(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0) }
    }

    @Test func validInput() {
        for text in ["", "ascii only", "café", "中文", "😀 emoji", "\u{10FFFF}", "\u{0}", String(repeating: "x", count: 1000)] {
            #expect(firstInvalid(Array(text.utf8)) == nil, "\(text)")
            #expect(Array(text.utf8).withUnsafeBufferPointer { UTF8Validation.isValid($0) })
        }
    }

    @Test("invalid sequences", arguments: [
        [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xF0, 0x80, 0x80, 0x80],
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
        [0x80], [0xBF], [0xFF], [0xFE], [0xC2], [0xE4, 0xB8], [0xF0, 0x9F, 0x98], [0xC2, 0x41],
    ] as [[UInt8]])
    func invalidSequences(bytes: [UInt8]) {
        #expect(firstInvalid(bytes) == 0)
        #expect(firstInvalid(Array("0123456789".utf8) + bytes) == 10)
    }

    @Test func offsetAfterLongASCIIAndMultiByteRuns() {
        let prefix = Array(String(repeating: "abcdefg中", count: 100).utf8)
        #expect(firstInvalid(prefix + [0xFF] + Array("tail".utf8)) == prefix.count)
        #expect(firstInvalid(prefix) == nil)
    }

    @Test func summaryCountsSequences() {
        let summary = Array("é中😀a".utf8).withUnsafeBufferPointer { UTF8Validation.scan($0) }
        #expect(summary.firstInvalidOffset == nil)
        #expect(summary.twoByteSequences == 1)
        #expect(summary.longSequences == 2)
    }

    @Test("a page is given to libxml2 as it stands only when it is valid and has no NUL, wherever the NUL is")
    func validWithoutNUL() {
        let text = Array(String(repeating: "abcdefg中é", count: 8).utf8)
        #expect(text.withUnsafeBufferPointer { UTF8Validation.isValidWithoutNUL($0) })
        #expect([UInt8]().withUnsafeBufferPointer { UTF8Validation.isValidWithoutNUL($0) })
        for position in text.indices where text[position] < 0x80 {
            var withNUL = text
            withNUL[position] = 0
            #expect(withNUL.withUnsafeBufferPointer { UTF8Validation.isValid($0) })
            #expect(!withNUL.withUnsafeBufferPointer { UTF8Validation.isValidWithoutNUL($0) }, "NUL at \(position)")
            var invalid = text
            invalid[position] = 0xFF
            #expect(!invalid.withUnsafeBufferPointer { UTF8Validation.isValidWithoutNUL($0) }, "0xFF at \(position)")
        }
    }

    @Test func largeBufferIsFast() {
        var page = [UInt8](repeating: 0x61, count: 16 << 20)
        page.append(contentsOf: Array("中".utf8))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(page.withUnsafeBufferPointer { UTF8Validation.isValid($0) })
        }
        // Generous, debug builds included: a byte-at-a-time loop in debug takes far longer.
        #expect(elapsed < .seconds(5))
    }
}
