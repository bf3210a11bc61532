import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("HTMLEncoding")
struct HTMLEncodingTests {
    typealias T = EncodingTestSupport

    @Test("labels map to WHATWG canonical names", arguments: [
        ("gb2312", "GBK"), ("GBK", "GBK"), ("x-gbk", "GBK"), ("gb18030", "gb18030"),
        ("x-sjis", "Shift_JIS"), ("shift_jis", "Shift_JIS"), ("windows-31j", "Shift_JIS"),
        ("latin1", "windows-1252"), ("iso-8859-1", "windows-1252"), ("us-ascii", "windows-1252"),
        ("ascii", "windows-1252"), ("utf8", "UTF-8"), ("unicode-1-1-utf-8", "UTF-8"),
        ("ks_c_5601-1987", "EUC-KR"), ("windows-949", "EUC-KR"), ("x-user-defined", "x-user-defined"),
        ("big5-hkscs", "Big5"), ("x-euc-jp", "EUC-JP"), ("csiso2022jp", "ISO-2022-JP"),
        ("utf-16", "UTF-16LE"), ("utf-16be", "UTF-16BE"), ("unicodefffe", "UTF-16BE"),
        ("iso-2022-kr", "replacement"), ("hz-gb-2312", "replacement"), ("cp1251", "windows-1251"),
        ("koi8", "KOI8-R"), ("koi8-u", "KOI8-U"), ("iso-8859-9", "windows-1254"), ("tis-620", "windows-874"),
        ("iso-8859-8-i", "ISO-8859-8-I"), ("x-mac-ukrainian", "x-mac-cyrillic"), ("mac", "macintosh"),
    ])
    func labelLookup(label: String, name: String) {
        #expect(HTMLEncoding(label: label)?.name == name)
    }

    @Test func labelsIgnoreASCIIWhitespaceAndCase() {
        #expect(HTMLEncoding(label: "  X-SJIS\t\n") == HTMLEncoding(label: "shift_jis"))
        #expect(HTMLEncoding(label: "UTF-8") == .utf8)
        #expect(HTMLEncoding(label: "Latin1") == .windows1252)
    }

    @Test func unknownLabelsAreRejected() {
        for label in ["", "utf-7", "utf-32", "ebcdic", "utf 8", "replacement", "\u{212A}oi8-r", "cp932x"] {
            #expect(HTMLEncoding(label: label) == nil, "\(label)")
        }
    }

    @Test func everyCanonicalNameIsALabel() {
        #expect(HTMLEncoding.allEncodings.count == 40)
        for encoding in HTMLEncoding.allEncodings where encoding.name != "replacement" {
            #expect(HTMLEncoding(label: encoding.name) == encoding)
            #expect(encoding.description == encoding.name)
        }
    }

    @Test func asciiCompatibility() {
        for label in ["utf-8", "windows-1252", "gbk", "gb18030", "big5", "shift_jis", "euc-jp", "euc-kr",
                      "koi8-r", "x-user-defined"] {
            #expect(T.encoding(label).isASCIICompatible, "\(label)")
        }
        for label in ["utf-16le", "utf-16be", "iso-2022-jp", "iso-2022-kr"] {
            #expect(!T.encoding(label).isASCIICompatible, "\(label)")
        }
    }

    @Test func shiftJISTrailBackslashIsPartOfTheCharacter() {
        // ソ is 83 5C: its second byte must not be read as "\".
        let sjis = T.encoding("shift_jis")
        #expect(T.characterLength([0x83, 0x5C], sjis) == 2)
        #expect(T.characterLength([0x83, 0x5C, 0x5C], at: 2, sjis) == 1)
        #expect(T.characterLength([0xB1], sjis) == 1, "half-width katakana is one byte")
        #expect(T.characterLength([0x83, 0x0A], sjis) == 1, "an invalid trail is not swallowed")
        #expect(T.characterLength([0x83], sjis) == 1, "clamped to the end")
    }

    @Test func gbkAndGB18030Lengths() {
        for encoding in [T.encoding("gbk"), T.encoding("gb18030")] {
            #expect(T.characterLength([0xD6, 0xD0], encoding) == 2)
            #expect(T.characterLength([0x81, 0x30, 0x81, 0x30], encoding) == 4)
            #expect(T.characterLength([0x81, 0x30, 0x41, 0x30], encoding) == 1)
            #expect(T.characterLength([0x81, 0x30, 0x81], encoding) == 1)
            #expect(T.characterLength([0x80], encoding) == 1)
            #expect(T.characterLength([0x41], encoding) == 1)
        }
    }

    @Test func otherMultiByteLengths() {
        #expect(T.characterLength([0x8F, 0xA1, 0xA1], T.encoding("euc-jp")) == 3)
        #expect(T.characterLength([0x8E, 0xB1], T.encoding("euc-jp")) == 2)
        #expect(T.characterLength([0xA4, 0xA2], T.encoding("euc-jp")) == 2)
        #expect(T.characterLength([0xA4, 0x5C], T.encoding("big5")) == 2)
        #expect(T.characterLength([0xA4, 0x80], T.encoding("big5")) == 1)
        #expect(T.characterLength([0xB0, 0xA1], T.encoding("euc-kr")) == 2)
        #expect(T.characterLength([0xE9, 0x41], T.encoding("windows-1252")) == 1)
    }

    @Test func utf8Lengths() {
        #expect(T.characterLength([0xE4, 0xB8, 0xAD], .utf8) == 3)
        #expect(T.characterLength([0xF0, 0x9F, 0x98, 0x80], .utf8) == 4)
        #expect(T.characterLength([0xE4, 0xB8], .utf8) == 2, "truncated: the maximal subpart")
        #expect(T.characterLength([0xE4, 0x41], .utf8) == 1)
        #expect(T.characterLength([0xC0, 0x80], .utf8) == 1, "overlong lead")
        #expect(T.characterLength([0xED, 0xA0, 0x80], .utf8) == 1, "surrogate")
        #expect(T.characterLength([0x41], at: 5, .utf8) == 1, "out of range is still never 0")
    }

    @Test func utf16Lengths() {
        let pair = T.utf16("😀")
        #expect(T.characterLength(pair, .utf16LE) == 4)
        #expect(T.characterLength(T.utf16("😀", bigEndian: true), .utf16BE) == 4)
        #expect(T.characterLength(Array(pair.prefix(3)), .utf16LE) == 2)
        #expect(T.characterLength([0x41], .utf16LE) == 1)
    }
}
