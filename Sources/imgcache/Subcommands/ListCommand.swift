import ArgumentParser
import Foundation
import ImgCache

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Lists a page's image references and what rewriting would do with each."
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
        let result = ImageRewriter(options: pageOptions.rewriteOptions(referenceStyle: .relativePath("images")))
            .references(in: input, pageURL: pageOptions.pageURL)
        for warning in result.warnings { Diagnostics.warn("\(page): \(warning)") }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            var data = try encoder.encode(result.references)
            data.append(0x0A)
            try? FileHandle.standardOutput.write(contentsOf: data)
        } else {
            var lines = ""
            for reference in result.references {
                let outcome = reference.rewritten ? "rewrite" : "skip:\(reference.disposition.code ?? "")"
                lines += "\(reference.kind.rawValue)\t\(outcome)\t\(reference.original)\t\(reference.url ?? "-")\t\(reference.localName ?? "-")\n"
            }
            try? FileHandle.standardOutput.write(contentsOf: Data(lines.utf8))
        }
    }
}
