import Testing
@_spi(Fuzzing) @testable import ImgCache
@testable import ImgCacheMarkup

@Suite("TextCodec")
struct TextCodecTests {
    typealias T = EncodingTestSupport

    @Test func legacyDecoding() {
        #expect(T.decode([0xD6, 0xD0, 0xCE, 0xC4], T.encoding("gbk")) == "中文")
        #expect(T.decode([0x81, 0x30, 0x81, 0x30], T.encoding("gb18030")) == "\u{80}")
        #expect(T.decode([0x80], T.encoding("gbk")) == "€")
        #expect(T.decode([0x83, 0x5C, 0x5C], T.encoding("shift_jis")) == "ソ\\")
        #expect(T.decode([0x81, 0x60], T.encoding("shift_jis")) == "～", "browsers use the Windows mapping")
        #expect(T.decode([0x80], T.encoding("shift_jis")) == "\u{80}")
        #expect(T.decode([0xA4, 0xA4, 0xA4, 0xE5], T.encoding("big5")) == "中文")
        #expect(T.decode([0xC3, 0xBC], T.encoding("euc-kr")) == "체")
        #expect(T.decode([0xC6, 0xFC, 0xCB, 0xDC], T.encoding("euc-jp")) == "日本")
        #expect(T.decode([0xA1, 0xC1], T.encoding("euc-jp")) == "～")
    }

    @Test func singleByteDecoding() {
        #expect(T.decode([0x63, 0x61, 0x66, 0xE9], .windows1252) == "café")
        #expect(T.decode([0x80, 0x81, 0x9F], .windows1252) == "€\u{81}Ÿ")
        #expect(T.decode([0xCF, 0xF0, 0xE8], T.encoding("windows-1251")) == "При")
        #expect(T.decode([0xF0, 0xD2, 0xC9], T.encoding("koi8-r")) == "При")
        #expect(T.decode([0xAE], T.encoding("koi8-u")) == "ў")
        #expect(T.decode([0xA1], T.encoding("windows-874")) == "ก")
        #expect(T.decode([0xDB], T.encoding("windows-874")) == "\u{FFFD}", "undefined byte")
        #expect(T.decode([0xAA], T.encoding("windows-1253")) == "\u{FFFD}")
        #expect(T.decode([0x41, 0xF7], T.encoding("x-user-defined")) == "A\u{F7F7}")
    }

    @Test func invalidBytesBecomeReplacementCharacters() {
        #expect(T.decode([0x61, 0xFF, 0x62], T.encoding("gbk")) == "a\u{FFFD}b")
        // An unmapped Shift_JIS pair gives its ASCII trail back, as browsers do.
        #expect(T.decode([0x85, 0x5C], T.encoding("shift_jis")) == "\u{FFFD}\\")
        #expect(T.decode([0x81, 0x7F], T.encoding("gbk")) == "\u{FFFD}\u{7F}")
        #expect(T.decode([0xD6], T.encoding("gbk")) == "\u{FFFD}", "truncated at the end")
        #expect(T.decode([0x61, 0xE4, 0xB8, 0x62], .utf8) == "a\u{FFFD}b")
        #expect(T.decode([0x41, 0x00, 0x00, 0xD8, 0x42], .utf16LE) == "A\u{FFFD}\u{FFFD}")
        #expect(T.decode([0x41], T.encoding("iso-2022-kr")) == "\u{FFFD}")
        #expect(T.decode([], T.encoding("iso-2022-kr")) == "")
    }

    @Test func utf16Decoding() {
        #expect(T.decode(T.utf16("<p>中😀</p>"), .utf16LE) == "<p>中😀</p>")
        #expect(T.decode(T.utf16("<p>中😀</p>", bigEndian: true), .utf16BE) == "<p>中😀</p>")
    }

    @Test func iso2022JPDecoding() {
        let bytes: [UInt8] = [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42, 0x61]
        #expect(T.decode(bytes, T.encoding("iso-2022-jp")) == "日本a")
    }

    @Test func encodeForURLQueries() {
        #expect(TextCodec.encode("中", to: T.encoding("gbk")) == [0xD6, 0xD0])
        #expect(TextCodec.encode("a😀", to: T.encoding("gbk")) == Array("a&#128512;".utf8))
        #expect(TextCodec.encode("€", to: T.encoding("gbk")) == [0x80])
        #expect(TextCodec.encode("€", to: T.encoding("gb18030")) == [0xA2, 0xE3])
        #expect(TextCodec.encode("😀", to: T.encoding("gb18030")) == [0x94, 0x39, 0xFC, 0x36])
        #expect(TextCodec.encode("é", to: .windows1252) == [0xE9])
        #expect(TextCodec.encode("中", to: .windows1252) == Array("&#20013;".utf8))
        #expect(TextCodec.encode("¥ソ", to: T.encoding("shift_jis")) == [0x5C, 0x83, 0x5C])
        #expect(TextCodec.encode("−", to: T.encoding("shift_jis")) == [0x81, 0x7C])
        #expect(TextCodec.encode("中文", to: T.encoding("big5")) == [0xA4, 0xA4, 0xA4, 0xE5])
        #expect(TextCodec.encode("日本", to: T.encoding("euc-jp")) == [0xC6, 0xFC, 0xCB, 0xDC])
        #expect(TextCodec.encode("체", to: T.encoding("euc-kr")) == [0xC3, 0xBC])
        #expect(TextCodec.encode("Пр", to: T.encoding("koi8-r")) == [0xF0, 0xD2])
        #expect(TextCodec.encode("a b", to: .utf16LE) == Array("a b".utf8), "URLs never carry UTF-16")
        #expect(TextCodec.encode("中", to: .utf8) == [0xE4, 0xB8, 0xAD])
        #expect(TextCodec.encode("\u{F7F7}", to: T.encoding("x-user-defined")) == [0xF7])
    }

    @Test func encodeISO2022JPShiftsBackBeforeAReference() {
        let encoded = TextCodec.encode("日😀a", to: T.encoding("iso-2022-jp"))
        #expect(encoded == [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x1B, 0x28, 0x42] + Array("&#128512;a".utf8))
    }

    @Test func exactTranscodingOfUTF16() throws {
        let page = "<p>中😀 &amp; x</p>"
        let utf8 = try #require(T.utf16(page).withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: .utf16LE) })
        #expect(utf8 == Array(page.utf8))
        #expect(TextCodec.transcodeFromUTF8(utf8, to: .utf16LE) == T.utf16(page))
        #expect(TextCodec.transcodeFromUTF8(utf8, to: .utf16BE) == T.utf16(page, bigEndian: true))
    }

    @Test func inexactTranscodingIsRefused() {
        let odd: [UInt8] = [0x41, 0x00, 0x42]
        #expect(odd.withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: .utf16LE) } == nil)
        let loneSurrogate: [UInt8] = [0x00, 0xD8, 0x41, 0x00]
        #expect(loneSurrogate.withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: .utf16LE) } == nil)
        #expect(TextCodec.transcodeFromUTF8([0xFF], to: .utf16LE) == nil)
        #expect(TextCodec.transcodeFromUTF8(Array("中".utf8), to: .windows1252) == nil)
        #expect([UInt8]([0x41]).withUnsafeBufferPointer {
            TextCodec.transcodeToUTF8Exactly($0, from: T.encoding("iso-2022-kr"))
        } == nil)
    }

    @Test func exactTranscodingOfISO2022JP() throws {
        let bytes: [UInt8] = Array("<p>".utf8) + [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42]
            + Array("</p>".utf8)
        let encoding = T.encoding("iso-2022-jp")
        let utf8 = try #require(bytes.withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: encoding) })
        #expect(String(decoding: utf8, as: UTF8.self) == "<p>日本</p>")
        #expect(TextCodec.transcodeFromUTF8(utf8, to: encoding) == bytes)
    }

    @Test func exactTranscodingOfLegacyASCIICompatiblePages() throws {
        let gbk = T.encoding("gbk")
        let bytes: [UInt8] = Array("<p>".utf8) + [0xD6, 0xD0, 0xCE, 0xC4] + Array("</p>".utf8)
        let utf8 = try #require(bytes.withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: gbk) })
        #expect(String(decoding: utf8, as: UTF8.self) == "<p>中文</p>")
        let cafe: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
        #expect(cafe.withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: .windows1252) } == Array("café".utf8))
        #expect([UInt8]([0xFF]).withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: gbk) } == nil)
    }

    @Test func singleByteTablesRoundTrip() {
        for encoding in HTMLEncoding.allEncodings {
            guard case .singleByte(let index) = encoding.kind else { continue }
            let table = index.table
            #expect(table.count == 128, "\(encoding)")
            let defined = (0x80...0xFF).map { UInt8($0) }.filter { table[Int($0) - 0x80] != 0 }
            let utf8 = defined.withUnsafeBufferPointer { TextCodec.transcodeToUTF8Exactly($0, from: encoding) }
            #expect(utf8 != nil, "\(encoding)")
        }
    }
}
