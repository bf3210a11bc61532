import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

extension Responsive {
    @Suite("CSS tokens")
    struct CSSTokenizerTests {
        @Test("numbers in every notation: signs, leading dots, exponents, and where a number ends")
        func numbersInEveryNotation() {
            #expect(CSSTokenizer.tokens(of: "+0.11e+01px") == [.dimension(CSSNumber(value: 1.1, isInteger: false), unit: "px")])
            #expect(CSSTokenizer.tokens(of: "-0e-0px") == [.dimension(CSSNumber(value: -0.0, isInteger: false), unit: "px")])
            #expect(CSSTokenizer.tokens(of: ".4E1px") == [.dimension(CSSNumber(value: 4, isInteger: false), unit: "px")])
            #expect(CSSTokenizer.tokens(of: "-12") == [.number(CSSNumber(value: -12, isInteger: true))])
            #expect(CSSTokenizer.tokens(of: "5%") == [.percentage(CSSNumber(value: 5, isInteger: true))])
            #expect(CSSTokenizer.tokens(of: "1e1.5px") == [
                .number(CSSNumber(value: 10, isInteger: false)), .dimension(CSSNumber(value: 0.5, isInteger: false), unit: "px"),
            ])
            #expect(CSSTokenizer.tokens(of: "1e") == [.dimension(CSSNumber(value: 1, isInteger: true), unit: "e")])
            #expect(CSSTokenizer.tokens(of: "+.") == [.delim("+"), .delim(".")])
        }

        @Test("identifiers, functions and escapes read as CSS reads them")
        func identsFunctionsAndEscapes() {
            #expect(CSSTokenizer.tokens(of: "\\(") == [.ident("(")])
            #expect(CSSTokenizer.tokens(of: "1\\p\\x") == [.dimension(CSSNumber(value: 1, isInteger: true), unit: "px")])
            #expect(CSSTokenizer.tokens(of: "\\1px") == [.ident("\u{1}px")])
            #expect(CSSTokenizer.tokens(of: "\\41 b") == [.ident("Ab")])
            #expect(CSSTokenizer.tokens(of: "\\0") == [.ident("\u{FFFD}")])
            #expect(CSSTokenizer.tokens(of: "--x -y") == [.ident("--x"), .whitespace, .ident("-y")])
            #expect(CSSTokenizer.tokens(of: "calc(") == [.function("calc")])
            #expect(CSSTokenizer.tokens(of: "@media #a #1") == [
                .atKeyword("media"), .whitespace, .hash("a", isIdentifier: true), .whitespace, .hash("1", isIdentifier: false),
            ])
        }

        @Test("comments are dropped; strings and url() are single tokens")
        func commentsStringsAndURLs() {
            #expect(CSSTokenizer.tokens(of: "1/* */px") == [.number(CSSNumber(value: 1, isInteger: true)), .ident("px")])
            #expect(CSSTokenizer.tokens(of: "/* open") == [])
            #expect(CSSTokenizer.tokens(of: "'a\\'b'") == [.string("a'b")])
            #expect(CSSTokenizer.tokens(of: "\"a\nb\"") == [.badString, .whitespace, .ident("b"), .string("")])
            #expect(CSSTokenizer.tokens(of: "url( a.png )") == [.url("a.png")])
            #expect(CSSTokenizer.tokens(of: "url(a b)") == [.badURL])
            #expect(CSSTokenizer.tokens(of: "url('a')") == [.function("url"), .string("a"), .closeParenthesis])
            #expect(CSSTokenizer.tokens(of: "<!-- -->") == [.cdo, .whitespace, .cdc])
            #expect(CSSTokenizer.tokens(of: "a\r\nb") == [.ident("a"), .whitespace, .ident("b")])
        }

        @Test("component values nest by brackets, and a list splits only at its outer commas")
        func componentValuesNestAndSplitOnOuterCommas() {
            let lists = CSSComponentValue.commaSeparatedLists("(a, b), min(1px, 2px), x")
            #expect(lists.count == 3)
            #expect(CSSComponentValue.commaSeparatedLists("((),1px").count == 1)
            #expect(CSSComponentValue.commaSeparatedLists("(]),1px").count == 2)
        }
    }
}
