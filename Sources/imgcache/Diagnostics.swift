#if CommandLine
import Foundation

/// Writes messages for a person to standard error. Every write of the command goes through
/// `write(contentsOf:)`, which throws where `write(_:)` raises an Objective-C exception on Darwin
/// when the reader has gone (`imgcache list | head`).
///
/// A message is escaped whole (``TerminalText``), whether standard error is a terminal or a log
/// file: much of it comes from pages and servers (a failure's `Content-Type` or `Location`, a
/// page's text), and an escape sequence in a log file acts on the terminal that later shows it.
enum Diagnostics {
    static func warn(_ message: String) {
        write("imgcache: warning: " + TerminalText.escaped(message))
    }

    static func error(_ message: String) {
        write("imgcache: error: " + TerminalText.escaped(message))
    }

    /// One line, as given (with its control characters escaped, line breaks included).
    static func note(_ message: String) {
        write(TerminalText.escaped(message))
    }

    /// The command's own lines of text, the line breaks between them kept.
    static func noteLines(_ text: String) {
        write(TerminalText.escapedLines(text))
    }

    private static func write(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }
}
#endif
