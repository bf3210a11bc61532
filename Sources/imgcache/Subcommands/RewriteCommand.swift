#if CommandLine
import ArgumentParser
import Foundation
import ImgCache

struct RewriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewrite",
        abstract: "Rewrites pages' image URLs to paths into a cache folder, changing nothing else."
    )

    @Argument(help: "HTML files to rewrite.")
    var pages: [String]

    @OptionGroup var pageOptions: PageOptions

    @Option(name: .customLong("cache-dir"), help: "Where the images live (default: <out>/images).")
    var cacheDirectory: String?

    @Option(help: "Folder to write each rewritten page into, under its own file name.")
    var out: String?

    @Option(help: "File to write the rewritten page to ('-' for standard output); one page only.")
    var output: String?

    @Option(name: .customLong("url-prefix"), help: "Write PREFIX<name> instead of a relative path (e.g. imgcache:// or file:///…/).")
    var urlPrefix: String?

    @Flag(help: "Print nothing but errors and warnings.")
    var quiet = false

    func validate() throws {
        if pages.isEmpty { throw ValidationError("Give at least one page to rewrite.") }
        switch (out, output) {
        case (nil, nil): throw ValidationError("Say where the rewritten pages go: --out DIR or --output FILE.")
        case (.some, .some): throw ValidationError("Use --out or --output, not both.")
        case (nil, .some) where pages.count > 1: throw ValidationError("--output takes one page; use --out DIR for several.")
        default: break
        }
    }

    func run() throws {
        MallocTuning.forPages()
        var failed = false
        // Every page of one --out folder gets the same options: worked out once (the relative
        // path alone is costly), not per page.
        var prepared: PreparedFolder?
        let pageURL = pageOptions.pageURL
        for page in pages {
            do {
                try rewrite(page, pageURL: pageURL, prepared: &prepared)
            } catch let error as FileError {
                Diagnostics.error(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }

    /// The rewriter for the pages of one folder.
    private struct PreparedFolder {
        let pageFolder: String
        let rewriter: ImageRewriter
    }

    private func rewrite(_ page: String, pageURL: BrowserURL?, prepared: inout PreparedFolder?) throws {
        let destination: String
        let pageFolder: String
        if let output {
            destination = output
            pageFolder = output == "-" ? "." : (output as NSString).deletingLastPathComponent
        } else {
            let folder = out ?? "."
            destination = (folder as NSString).appendingPathComponent((page as NSString).lastPathComponent)
            pageFolder = folder
        }
        if prepared?.pageFolder != pageFolder {
            let cacheFolder = cacheDirectory ?? ((pageFolder.isEmpty ? "." : pageFolder) as NSString).appendingPathComponent("images")
            let style: LocalReferenceStyle = urlPrefix.map { .urlPrefix($0) }
                ?? .relativePath(RelativePath.from(folder: pageFolder.isEmpty ? "." : pageFolder, to: cacheFolder))
            prepared = PreparedFolder(pageFolder: pageFolder, rewriter: ImageRewriter(options: pageOptions.rewriteOptions(referenceStyle: style), naming: pageOptions.naming))
        }

        let input = try AtomicFile.read(page)
        let result = prepared!.rewriter.rewrite(input, pageURL: pageURL)
        // The parse's memory back to the system before the copy is written (only a large page's
        // is worth a trim), so that the peak stays near the input plus its references.
        if input.count >= 4 << 20 { MallocTuning.handBackFreedMemory() }
        for warning in result.warnings { Diagnostics.warn("\(page): \(warning)") }

        if destination == "-" {
            try result.writeBytes { piece in try FileHandle.standardOutput.write(contentsOf: Data(piece)) }
        } else {
            try result.write(toFile: destination)
        }
        if !quiet {
            let rewritten = result.references.count(where: \.rewritten)
            Diagnostics.note("\(page): \(result.references.count) image references, \(rewritten) rewritten -> \(destination == "-" ? "stdout" : destination)")
        }
    }
}

extension RewriteCommand: TakesInputList {
    var inputList: [String] {
        get { pages }
        set { pages = newValue }
    }
}
#endif
