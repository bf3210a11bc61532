import ArgumentParser
import Foundation
import ImgCache

/// `imgcache watch`: live mode that keeps running, rewriting pages again as they are edited.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Keeps pages' images offline while the pages are edited (live mode, until interrupted).",
        discussion: """
            Rewrites each page at once with every image pointing into the cache (live mode), \
            downloads the images, and then watches the files: when one changes it is rewritten \
            again and its new images are fetched. A refresh event fires once the downloads of a \
            burst are done (--debounce, --events, --on-refresh). The manifest is rewritten after \
            each page's downloads.

            Ctrl-C (or SIGTERM) stops the downloads under way, waits for writes in progress and \
            leaves no temporary file; a second Ctrl-C quits at once.

            Exit status after a stop: 0 when the latest version of every page has all its images \
            localised; 2 when some could not be; 1 when a page could not be read or written (at \
            start: at once); 64 for a usage error.
            """
    )

    @Argument(help: "HTML files to watch.")
    var inputs: [String]

    @Option(help: "Seconds between looks at the files.")
    var interval: Double = 0.25

    @OptionGroup var options: FetchOptions

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give at least one HTML file to watch.") }
        if let url = inputs.first(where: { WebURL($0)?.isHTTP == true }) {
            throw ValidationError("watch takes files, not URLs ('\(url)'); use `imgcache fetch` for a page on the web.")
        }
        if !(interval > 0) { throw ValidationError("--interval must be a positive number of seconds.") }
        do {
            _ = try FetchPlan(arguments: inputs, out: options.out, cacheFolder: options.cacheFolder,
                              baseURL: options.page.pageURL, copiesAssets: false)
        } catch .conflict(let reason) {
            throw ValidationError(reason)
        } catch {}
    }

    func run() async throws {
        if let missing = inputs.first(where: { !FileManager.default.isReadableFile(atPath: $0) }) {
            Diagnostics.error("cannot read \(missing)")
            throw ExitCode.failure
        }
        let signals = StopSignals()
        let session: FetchSession
        do {
            session = try FetchSession(settings: options.settings)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode.failure
        }
        let watcher = PageWatcher(session: session, inputs: inputs)
        if !options.quiet {
            Diagnostics.note("imgcache: watching \(inputs.joined(separator: ", ")); Ctrl-C to stop")
        }
        let inputs = self.inputs
        let pause = Duration.seconds(interval)
        let polling = Task {
            var files = InputFileWatcher(paths: inputs)
            for input in inputs { await watcher.pageChanged(input) }
            while !Task.isCancelled {
                try? await Task.sleep(for: pause)
                for change in files.poll() {
                    switch change {
                    case .modified(let path): await watcher.pageChanged(path)
                    case .removed(let path): await watcher.pageRemoved(path)
                    }
                }
            }
        }
        _ = await signals.wait()
        if !options.quiet { Diagnostics.note("imgcache: stopping…") }
        polling.cancel()
        await polling.value
        await watcher.stop()
        await session.finish()
        let results = await watcher.results
        if results.hadErrors { throw ExitCode.failure }
        if !results.failures.isEmpty { throw ExitCode(2) }
    }
}
