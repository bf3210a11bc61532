#if CommandLine
/// Text made safe to show on a terminal: every control character is written as `\xHH`, its code
/// point in two upper-case hexadecimal digits (ESC as `\x1B`, a newline as `\x0A`, DEL as `\x7F`,
/// U+009B as `\x9B`); every other character, non-ASCII letters included, is kept as it is.
///
/// Pages and servers choose much of what the command prints (a `Content-Type`, a `Location`, a
/// page's markup): a terminal acts on the escape sequences in such text, so a server could retitle
/// the window, erase or overwrite earlier lines (hiding other failures) or, where OSC 52 is
/// allowed, write the clipboard. The controls are C0 (U+0000–U+001F, tab and newline included: a
/// line break inside a server's text would forge a line of the command's own), DEL (U+007F) and
/// C1 (U+0080–U+009F, which some terminals read as ESC sequences, U+009B as CSI). A backslash is
/// kept as it is, so that paths and URLs read as given; `\x1B` in the output is therefore either
/// an escaped ESC or those four characters in the text.
///
/// Text here is always a Swift `String`, so it holds no invalid UTF-8: where the command decodes
/// bytes, each invalid sequence has already become U+FFFD.
enum TerminalText {
    /// `text` with its control characters escaped; `text` itself when it has none.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += "\\x"
                result += hexDigits[Int(scalar.value >> 4)]
                result += hexDigits[Int(scalar.value & 0xF)]
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text`'s lines each escaped, the line breaks between them kept: for the command's own
    /// multi-line messages, whose parts may come from elsewhere.
    static func escapedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(separator: "\n")
    }

    /// C0, DEL and C1.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
}
#endif
