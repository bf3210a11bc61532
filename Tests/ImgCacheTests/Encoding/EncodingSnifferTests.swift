import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("EncodingSniffer")
struct EncodingSnifferTests {
    typealias T = EncodingTestSupport

    /// 中文 in GBK.
    static let chineseGBK: [UInt8] = [0xD6, 0xD0, 0xCE, 0xC4]

    @Test func utf8ByteOrderMarkBeatsMeta() {
        let page = [0xEF, 0xBB, 0xBF] + Array(#"<meta charset="gbk">"#.utf8)
        let sniffed = T.sniff(page, transport: "shift_jis")
        #expect(sniffed.encoding == .utf8)
        #expect(sniffed.source == .byteOrderMark)
        #expect(sniffed.byteOrderMarkLength == 3)
        #expect(sniffed.noticeText == nil)
    }

    @Test func utf16ByteOrderMarks() {
        let le = T.sniff([0xFF, 0xFE] + T.utf16(#"<meta charset="gbk">"#))
        #expect(le.encoding == .utf16LE)
        #expect(le.byteOrderMarkLength == 2)
        let be = T.sniff([0xFE, 0xFF] + T.utf16("<p>x</p>", bigEndian: true))
        #expect(be.encoding == .utf16BE)
        #expect(be.source == .byteOrderMark)
    }

    @Test func transportBeatsMeta() {
        let sniffed = T.sniff(#"<meta charset="gbk"><p>hello</p>"#, transport: "Shift_JIS")
        #expect(sniffed.encoding.name == "Shift_JIS")
        #expect(sniffed.source == .transport)
        #expect(sniffed.byteOrderMarkLength == 0)
    }

    @Test func quotedTransportLabel() {
        #expect(T.sniff("<p>x</p>", transport: "\"euc-kr\"").encoding.name == "EUC-KR")
    }

    @Test func unknownTransportLabelFallsThroughWithAWarning() {
        let sniffed = T.sniff(#"<meta charset="big5">"#, transport: "x-klingon")
        #expect(sniffed.encoding.name == "Big5")
        #expect(sniffed.source == .metaDeclaration)
        #expect(sniffed.noticeText?.contains("x-klingon") == true)
    }

    @Test func metaDeclaration() {
        let sniffed = T.sniff(#"<html><head><meta charset="windows-1251"></head><body>plain</body>"#)
        #expect(sniffed.encoding.name == "windows-1251")
        #expect(sniffed.source == .metaDeclaration)
        #expect(sniffed.noticeText == nil)
    }

    @Test func unknownMetaLabelWarns() {
        let sniffed = T.sniff(#"<meta charset="klingon"><p>x</p>"#)
        #expect(sniffed.encoding == .windows1252)
        #expect(sniffed.source == .defaultEncoding)
        #expect(sniffed.noticeText?.contains("klingon") == true)
    }

    @Test func undeclaredUTF8IsDetected() {
        let sniffed = T.sniff("<p>café</p>")
        #expect(sniffed.encoding == .utf8)
        #expect(sniffed.source == .utf8Detection)
        #expect(sniffed.noticeText == nil)
    }

    @Test func undeclaredASCIIOrLegacyDefaultsToWindows1252() {
        #expect(T.sniff("<p>plain</p>").encoding == .windows1252)
        #expect(T.sniff("<p>plain</p>").source == .defaultEncoding)
        #expect(T.sniff(Array("<p>caf".utf8) + [0xE9] + Array("</p>".utf8)).encoding == .windows1252)
        #expect(T.sniff([]).encoding == .windows1252)
    }

    @Test func lyingGB2312DeclarationOnAUTF8Page() {
        let sniffed = T.sniff(#"<meta charset="gb2312"><p>中文网页</p>"#)
        #expect(sniffed.encoding == .utf8)
        #expect(sniffed.source == .utf8Detection)
        #expect(sniffed.noticeText?.contains("gb2312") == true)
        let byTransport = T.sniff("<p>中文</p>", transport: "gbk")
        #expect(byTransport.encoding == .utf8)
        #expect(byTransport.noticeText != nil)
    }

    @Test func lyingLatin1DeclarationOnAUTF8Page() {
        let sniffed = T.sniff(#"<meta charset="iso-8859-1"><p>café</p>"#)
        #expect(sniffed.encoding == .utf8)
        #expect(sniffed.noticeText?.contains("iso-8859-1") == true)
    }

    @Test func realGBKPageIsTrusted() {
        let page = Array(#"<meta charset="gbk"><p>"#.utf8) + Self.chineseGBK + Array("</p>".utf8)
        let sniffed = T.sniff(page)
        #expect(sniffed.encoding.name == "GBK")
        #expect(sniffed.source == .metaDeclaration)
        #expect(sniffed.noticeText == nil)
        #expect(T.decode(page, sniffed.encoding) == #"<meta charset="gbk"><p>中文</p>"#)
    }

    @Test func gbkTextThatHappensToBeTwoByteUTF8IsTrusted() {
        // 某 in GBK is C4 B3, which is also UTF-8 for "ĳ": only two-byte sequences, so GBK stays.
        let page = Array(#"<meta charset="gbk"><p>"#.utf8) + [0xC4, 0xB3] + Array("</p>".utf8)
        let sniffed = T.sniff(page)
        #expect(sniffed.encoding.name == "GBK")
        #expect(T.decode(page, sniffed.encoding).contains("某"))
    }

    @Test func asciiPageDeclaredUTF16ByTransportIsNotUTF16() {
        let sniffed = T.sniff(#"<meta charset="euc-jp"><p>x</p>"#, transport: "utf-16")
        #expect(sniffed.encoding.name == "EUC-JP")
        #expect(sniffed.noticeText?.contains("UTF-16") == true || sniffed.noticeText?.contains("utf-16") == true)
        let real = T.sniff(T.utf16("<p>x</p>"), transport: "utf-16")
        #expect(real.encoding == .utf16LE)
        #expect(real.source == .transport)
    }

    @Test func declaredUTF8IsKept() {
        let sniffed = T.sniff(Array(#"<meta charset="utf-8">"#.utf8) + [0xFF])
        #expect(sniffed.encoding == .utf8)
        #expect(sniffed.source == .metaDeclaration)
    }

    @Test func byteOrderMarkHelper() {
        let mark = [UInt8]([0xEF, 0xBB, 0xBF, 0x41]).withUnsafeBufferPointer { EncodingSniffer.byteOrderMark($0) }
        #expect(mark?.encoding == .utf8)
        #expect(mark?.length == 3)
        #expect([UInt8]([0xEF, 0xBB]).withUnsafeBufferPointer { EncodingSniffer.byteOrderMark($0) } == nil)
    }
}
