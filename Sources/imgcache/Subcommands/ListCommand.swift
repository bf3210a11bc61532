#if CommandLine
import ArgumentParser
import Foundation
import ImgCache

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Lists a page's image references and what rewriting would do with each.",
        discussion: """
            One line per reference: its kind, what rewriting would do, the reference as the page \
            wrote it, its absolute URL and its name in the cache, separated by tabs. On a terminal, \
            control characters in the page's text (escape sequences, tabs, line breaks) are shown \
            as \\xHH, their code point in hexadecimal; piped or redirected, the text is written as \
            the page has it. With --device, a sixth column names the devices that show each \
            candidate of an <img> or its <picture> (\"none\" when no device does, \"-\" for other \
            references); --json gives them as \"shownOn\".
            """
    )

    @Argument(help: "The HTML file to read.")
    var page: String

    @OptionGroup var pageOptions: PageOptions

    @Flag(help: "Print a JSON array of objects instead of one line per reference.")
    var json = false

    func run() throws {
        let input: [UInt8]
        do {
            input = try AtomicFile.read(page)
        } catch let error as FileError {
            Diagnostics.error(error.description)
            throw ExitCode.failure
        }
        let options = pageOptions.rewriteOptions(referenceStyle: .relativePath("images"))
        let result = ImageRewriter(options: options, naming: pageOptions.naming).references(in: input, pageURL: pageOptions.pageURL)
        for warning in result.warnings { Diagnostics.warn("\(page): \(warning)") }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            var data = try encoder.encode(result.references)
            data.append(0x0A)
            try? FileHandle.standardOutput.write(contentsOf: data)
        } else {
            // A person reading a terminal gets the page's text escaped (a page's escape sequences
            // would act on the terminal); a script reading a pipe gets it as the page has it. The
            // URL is escaped too, in case one is not serialised; the other fields are the
            // command's own words and cache names.
            let escapes = isatty(STDOUT_FILENO) != 0
            var lines = ""
            for reference in result.references {
                let outcome = reference.rewritten ? "rewrite" : "skip:\(reference.disposition.code ?? "")"
                let original = escapes ? TerminalText.escaped(reference.original) : reference.original
                let url = escapes ? reference.url.map(TerminalText.escaped) : reference.url
                lines += "\(reference.kind.rawValue)\t\(outcome)\t\(original)\t\(url ?? "-")\t\(reference.localName ?? "-")"
                if !options.devices.isEmpty {
                    lines += "\t" + (reference.shownOn.map { $0.isEmpty ? "none" : $0.joined(separator: ",") } ?? "-")
                }
                lines += "\n"
            }
            try? FileHandle.standardOutput.write(contentsOf: Data(lines.utf8))
        }
    }
}
#endif
