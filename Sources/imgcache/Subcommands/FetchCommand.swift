import ArgumentParser
import Foundation
import ImgCache

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Downloads pages' images into a cache folder and writes the pages rewritten to use them.",
        discussion: """
            Exit status: 0 when every image was localised; 2 when some could not be (one line per \
            failure on standard error); 1 when a page or file could not be read or written; 64 for \
            a usage error.
            """
    )

    @Argument(help: "HTML files or http(s) URLs.")
    var inputs: [String]

    @Option(help: "build: wait for downloads and rewrite what is cached; live: rewrite everything first, then download.")
    var mode: ModeArgument = .build

    @OptionGroup var options: FetchOptions

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give at least one page: a file or an http(s) URL.") }
        if let conflict = FetchSession.conflict(among: inputs, out: options.out) { throw ValidationError(conflict) }
    }

    func run() async throws {
        let session: FetchSession
        do {
            session = try FetchSession(settings: options.settings)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode.failure
        }
        var pages: [FetchManifest.Page] = []
        var ioFailed = false
        var failures: [DownloadOutcome] = []
        var summaries: [String] = []
        for input in inputs {
            do {
                let run = try await session.localize(input, mode: mode.mode)
                pages.append(run.manifestPage)
                failures += run.failures
                summaries.append(run.summaryLine)
            } catch let error as PageLoadError {
                Diagnostics.error(error.description)
                if let hint = FetchSession.hint(forReason: error.reason) { Diagnostics.note("imgcache: hint: \(hint)") }
                ioFailed = true
            } catch let error as FileError {
                Diagnostics.error(error.description)
                ioFailed = true
            }
        }
        await session.finish()
        if !options.quiet { summaries.forEach(Diagnostics.note) }
        do {
            try session.writeManifest(pages)
        } catch {
            Diagnostics.error("cannot write the manifest: \(error)")
            ioFailed = true
        }
        for failure in failures {
            Diagnostics.note("imgcache: failed: \(failure.url): \(failure.error ?? "unknown error")")
        }
        if let hint = FetchSession.hint(for: failures) { Diagnostics.note("imgcache: hint: \(hint)") }
        if ioFailed { throw ExitCode.failure }
        if !failures.isEmpty { throw ExitCode(2) }
    }
}
