import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("DecodedText")
struct DecodedTextTests {
    typealias T = EncodingTestSupport

    @Test func ampersandReferenceMapsBackToRawOffsets() {
        let text = T.decodedText("a&amp;b")
        #expect(text.string == "a&b")
        #expect(text.rawOffsets == [0, 1, 6, 7])
        #expect(text.rawRange(of: 1..<2) == 1..<6)
    }

    @Test func asciiFastPath() {
        let text = T.decodedText("/img/a.png?x=1")
        #expect(text.string == "/img/a.png?x=1")
        #expect(text.rawOffsets == Array(0...14))
        let withoutReferences = T.decodedText("a&amp;b", references: false)
        #expect(withoutReferences.string == "a&amp;b")
        #expect(T.decodedText("").rawOffsets == [0])
    }

    @Test func legacyNamedReferenceFollowedByEqualsStaysLiteral() {
        #expect(T.decodedText("?a=1&copy=2").string == "?a=1&copy=2")
        #expect(T.decodedText("?a=1&copyx").string == "?a=1&copyx")
        #expect(T.decodedText("&copy;2").string == "©2")
        #expect(T.decodedText("&copy 2").string == "© 2")
        #expect(T.decodedText("&copy").string == "©")
        #expect(T.decodedText("&amp=").string == "&amp=")
        #expect(T.decodedText("&AMP;&LT&GT;&QUOT;&nbsp;&eacute&uuml;").string == "&<>\"\u{A0}éü")
    }

    @Test func namedReferencesWithoutLegacyFormNeedASemicolon() {
        #expect(T.decodedText("&apos;").string == "'")
        #expect(T.decodedText("&apos").string == "&apos")
        #expect(T.decodedText("&hellip;&mdash;&rarr;").string == "…—→")
        #expect(T.decodedText("&notin;").string == "∉")
        #expect(T.decodedText("&notit;").string == "&notit;", "\"not\" followed by a letter stays literal")
        #expect(T.decodedText("&not;").string == "¬")
        #expect(T.decodedText("&bogus;").string == "&bogus;")
        #expect(T.decodedText("& amp;").string == "& amp;")
    }

    @Test func referenceWithTwoScalars() {
        let text = T.decodedText("x&NotEqualTilde;y")
        #expect(text.scalars == ["x", "\u{2242}", "\u{338}", "y"])
        #expect(text.rawOffsets == [0, 1, 1, 16, 17])
        #expect(text.rawRange(of: 1..<2) == 1..<16, "never splits one reference")
    }

    @Test func numericReferences() {
        #expect(T.decodedText("&#x4E2D;").string == "中")
        #expect(T.decodedText("&#X4e2d;&#20013;").string == "中中")
        #expect(T.decodedText("&#65").string == "A")
        #expect(T.decodedText("&#65x").string == "Ax")
        #expect(T.decodedText("&#0;").string == "\u{FFFD}")
        #expect(T.decodedText("&#xD800;").string == "\u{FFFD}")
        #expect(T.decodedText("&#x110000;").string == "\u{FFFD}")
        #expect(T.decodedText("&#99999999999999999999;").string == "\u{FFFD}")
        #expect(T.decodedText("&#128;&#x9F;&#x81;").string == "€Ÿ\u{81}")
        #expect(T.decodedText("&#;&#x;&#xg").string == "&#;&#x;&#xg")
        let offsets = T.decodedText("a&#x4E2D;b").rawOffsets
        #expect(offsets == [0, 1, 9, 10])
    }

    @Test func utf8WithInvalidBytes() {
        let text = T.decodedText([0x61, 0xE4, 0xB8, 0x62, 0xFF, 0xE4, 0xB8, 0xAD], .utf8)
        #expect(text.string == "a\u{FFFD}b\u{FFFD}中")
        #expect(text.rawOffsets == [0, 1, 3, 4, 5, 8])
    }

    @Test func shiftJISBackslashTrailIsNotABackslash() {
        let sjis = T.encoding("shift_jis")
        let text = T.decodedText([0x83, 0x5C, 0x5C, 0x26, 0x61, 0x6D, 0x70, 0x3B], sjis)
        #expect(text.string == "ソ\\&")
        #expect(text.rawOffsets == [0, 2, 3, 8])
    }

    @Test func gbkDecodingWithOffsetsAndErrors() {
        let gbk = T.encoding("gbk")
        let text = T.decodedText([0x2F, 0xD6, 0xD0, 0xCE, 0xC4, 0x81, 0x7F, 0xFF, 0x80], gbk)
        #expect(text.string == "/中文\u{FFFD}\u{7F}\u{FFFD}€")
        #expect(text.rawOffsets == [0, 1, 3, 5, 6, 7, 8, 9])
        let fourByte = T.decodedText([0x61, 0x94, 0x39, 0xFC, 0x36, 0x62], T.encoding("gb18030"))
        #expect(fourByte.string == "a😀b")
        #expect(fourByte.rawOffsets == [0, 1, 5, 6])
    }

    @Test func otherEncodings() {
        #expect(T.decodedText([0x63, 0x61, 0x66, 0xE9, 0x26, 0x23, 0x33, 0x38, 0x3B], .windows1252).string == "café&")
        #expect(T.decodedText([0xA4, 0xA4, 0x5C], T.encoding("big5")).string == "中\\")
        #expect(T.decodedText([0xC3, 0xBC], T.encoding("euc-kr")).string == "체")
        #expect(T.decodedText([0x8F, 0xB0, 0xA1], T.encoding("euc-jp")).string == "丂")
        let utf16 = T.decodedText(T.utf16("a&amp;😀"), .utf16LE)
        #expect(utf16.string == "a&😀")
        #expect(utf16.rawOffsets == [0, 2, 12, 16])
        let iso2022 = T.decodedText([0x61, 0x1B, 0x80], T.encoding("iso-2022-jp"))
        #expect(iso2022.string == "a\u{1B}\u{FFFD}")
    }

    @Test func rawRangeClampsAndHandlesEmptyRanges() {
        let text = T.decodedText("a&amp;b")
        #expect(text.rawRange(of: 0..<0) == 0..<0)
        #expect(text.rawRange(of: 0..<3) == 0..<7)
        #expect(text.rawRange(of: 2..<10) == 6..<7)
    }
}
