import Testing
@_spi(Fuzzing) @testable import ImgCache
@testable import ImgCacheMarkup

@Suite("MetaCharsetPrescan")
struct MetaCharsetPrescanTests {
    typealias T = EncodingTestSupport

    @Test func metaCharset() {
        #expect(T.prescan(#"<!doctype html><html><head><meta charset="gbk"><title>x</title>"#)?.name == "GBK")
    }

    @Test func httpEquivContentType() {
        let page = #"<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head>"#
        #expect(T.prescan(page)?.name == "Shift_JIS")
    }

    @Test func contentOrderDoesNotMatter() {
        #expect(T.prescan(#"<meta content="text/html; charset=euc-kr" http-equiv="content-type">"#)?.name == "EUC-KR")
    }

    @Test func contentWithoutHTTPEquivIsIgnored() {
        #expect(T.prescan(#"<meta content="text/html; charset=euc-kr">"#) == nil)
        #expect(T.prescan(#"<meta http-equiv="refresh" content="0; charset=euc-kr">"#) == nil)
    }

    @Test func charsetInsideACommentIsIgnored() {
        #expect(T.prescan(#"<!-- <meta charset="gbk"> --><meta charset="big5">"#)?.name == "Big5")
        #expect(T.prescan(#"<!-- <meta charset="gbk"> -->"#) == nil)
        // "<!-->" is an empty, already closed comment.
        #expect(T.prescan(#"<!--><meta charset="koi8-r">"#)?.name == "KOI8-R")
    }

    @Test func metaAfter1024BytesIsIgnored() {
        let padding = String(repeating: " ", count: 1024)
        #expect(T.prescan(padding + #"<meta charset="gbk">"#) == nil)
        let almost = String(repeating: " ", count: 1000)
        #expect(T.prescan(almost + #"<meta charset="gbk">"#)?.name == "GBK")
        let straddling = String(repeating: " ", count: 1010)
        #expect(T.prescan(straddling + #"<meta charset="gbk">"#) == nil, "must end inside the window")
    }

    @Test func unquotedAndUppercase() {
        #expect(T.prescan("<META CHARSET=GB2312>")?.name == "GBK")
        #expect(T.prescan("<meta charset=utf-8/>")?.name == nil, "unquoted value runs to the space or >")
        #expect(T.prescan("<meta charset=windows-1251 >")?.name == "windows-1251")
        #expect(T.prescan("<MeTa HTTP-EQUIV=CONTENT-TYPE CONTENT='text/html;charset=EUC-JP'>")?.name == "EUC-JP")
        #expect(T.prescan("<meta/charset=koi8-r>")?.name == "KOI8-R")
    }

    @Test func charsetAttributeInOtherTagsIsSkipped() {
        #expect(T.prescan(#"<script charset="gbk"></script><p title="<meta charset=big5>">"#) == nil)
        #expect(T.prescan(#"<link rel=x charset="gbk"><meta charset="euc-kr">"#)?.name == "EUC-KR")
    }

    @Test func utf16AndUserDefinedDeclarationsAreAdjusted() {
        #expect(T.prescan(#"<meta charset="utf-16">"#) == .utf8)
        #expect(T.prescan(#"<meta charset="UTF-16BE">"#) == .utf8)
        #expect(T.prescan(#"<meta charset="x-user-defined">"#) == .windows1252)
    }

    @Test func unknownLabelIsSkippedAndTheScanGoesOn() {
        #expect(T.prescan(#"<meta charset="klingon"><meta charset="iso-8859-2">"#)?.name == "ISO-8859-2")
        let result = Array(#"<meta charset="klingon">"#.utf8).withUnsafeBufferPointer { MetaCharsetPrescan.scan($0) }
        #expect(result.encoding == nil)
        #expect(result.unknownLabels == ["klingon"])
    }

    @Test func firstCharsetWinsWithinOneTagAndDuplicatesAreIgnored() {
        #expect(T.prescan(#"<meta charset="gbk" charset="big5">"#)?.name == "GBK")
        let mixed = #"<meta http-equiv="content-type" content="text/html; charset=big5" charset="gbk">"#
        #expect(T.prescan(mixed)?.name == "GBK", "a charset attribute overrides content")
    }

    @Test func contentAttributeParsing() {
        func label(_ content: String) -> String? { MetaCharsetPrescan.charsetLabel(inContent: Array(content.utf8)) }
        #expect(label("text/html; charset=utf-8") == "utf-8")
        #expect(label("text/html; charset = \"big5\" ") == "big5")
        #expect(label("text/html; charset='euc-kr';x") == "euc-kr")
        #expect(label("text/html; charset=\"unterminated") == nil)
        #expect(label("text/html; charsetx; charset=gbk") == "gbk")
        #expect(label("text/html") == nil)
    }

    @Test func xmlDeclarationIsTheFallback() {
        #expect(T.prescan(#"<?xml version="1.0" encoding="Shift_JIS"?><html>"#)?.name == "Shift_JIS")
        #expect(T.prescan(#"<?xml version="1.0" encoding="utf-16"?>"#) == .utf8)
        #expect(T.prescan(#" <?xml version="1.0" encoding="Shift_JIS"?>"#) == nil, "only at the very start")
        #expect(T.prescan(#"<?xml version="1.0" encoding="Shift_JIS"?><meta charset="gbk">"#)?.name == "GBK")
    }

    @Test func utf16XMLPrefix() {
        #expect(Array(T.utf16("<?xml")).withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) } == .utf16LE)
        #expect(Array(T.utf16("<?xml", bigEndian: true)).withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) } == .utf16BE)
    }

    @Test func truncatedInputDoesNotCrash() {
        for text in ["<", "<m", "<meta", "<meta ", "<meta charset", "<meta charset=", "<meta charset=\"gb", "<!--", "<!", "</a"] {
            #expect(T.prescan(text) == nil, "\(text)")
        }
    }
}
