// The command's own module is imported on Linux only: on a case-insensitive file system (macOS's
// default) `imgcache` and `ImgCache` name the same module file. The end-to-end suite
// (TerminalEscapingTests) runs everywhere.
#if os(Linux)
import Testing
@testable import imgcache

@Suite("TerminalText")
struct TerminalTextTests {
    @Test("every C0 control, DEL and every C1 control is written as \\xHH, its code point in hexadecimal")
    func everyControl() {
        let controls = Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F)
        for value in controls {
            let scalar = Unicode.Scalar(UInt32(value))!
            let expected = "\\x" + String(value, radix: 16, uppercase: true).leftPadded(to: 2)
            #expect(TerminalText.escaped("a\(Character(scalar))b") == "a\(expected)b", "U+\(String(value, radix: 16))")
        }
    }

    @Test("escape sequences lose their ESC, BEL and CSI; a line break in the text is escaped too")
    func sequences() {
        #expect(TerminalText.escaped("text/html\u{1B}]0;owned\u{07}\u{1B}[2K\u{1B}[1A") == #"text/html\x1B]0;owned\x07\x1B[2K\x1B[1A"#)
        #expect(TerminalText.escaped("\u{1B}]52;c;b3duZWQ=\u{1B}\\") == #"\x1B]52;c;b3duZWQ=\x1B\"#)
        #expect(TerminalText.escaped("\u{9B}31mred\u{9B}0m") == #"\x9B31mred\x9B0m"#)
        #expect(TerminalText.escaped("line\nforged: line\r\n") == #"line\x0Aforged: line\x0D\x0A"#)
    }

    @Test("printable text, non-ASCII letters, emoji and backslashes are kept as they are")
    func keptAsIs() {
        for text in ["", "plain ASCII ~!@#$%^&*()_+{}|:\"<>?", "café", "日本語のページ", "👩‍👩‍👧 e\u{301}", #"C:\path\x1B"#,
                     "\u{A0}no-break space, \u{A0} (U+00A0 follows the C1 block)", "\u{FFFD}"] {
            #expect(TerminalText.escaped(text) == text)
        }
    }

    @Test("escapedLines keeps the command's own line breaks and escapes the rest")
    func lines() {
        #expect(TerminalText.escapedLines("first\u{1B}[2K\n\nthird\t") == "first\\x1B[2K\n\nthird\\x09")
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
#endif
