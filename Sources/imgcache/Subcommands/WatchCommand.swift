#if CommandLine
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

            A folder is watched as a site (see `imgcache fetch --help`): a new page or \
            stylesheet is localised, a changed one again, other new or changed files are copied, \
            and when a file is deleted from the folder its copy in --out is deleted too.

            Ctrl-C (or SIGTERM) stops the downloads under way, waits for writes in progress and \
            leaves no temporary file; a second Ctrl-C quits at once.

            Exit status after a stop: 0 when the latest version of every page has all its images \
            localised; 2 when some could not be; 1 when a page could not be read or written (at \
            start: at once); 64 for a usage error.
            """
    )

    @Argument(help: "HTML or CSS files, or site folders, to watch.")
    var inputs: [String]

    @Option(help: "Seconds between looks at the files.")
    var interval: Double = 0.25

    @Flag(name: .customLong("no-copy"), help: "Do not copy a site folder's other files into --out.")
    var noCopy = false

    @OptionGroup var options: FetchOptions

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give at least one HTML file or site folder to watch.") }
        if let url = inputs.first(where: { BrowserURL($0)?.isHTTP == true }) {
            throw ValidationError("watch takes files, not URLs ('\(url)'); use `imgcache fetch` for a page on the web.")
        }
        if !(interval > 0) { throw ValidationError("--interval must be a positive number of seconds.") }
    }

    private func plan() throws(LocalizationPlan.Problem) -> LocalizationPlan {
        try LocalizationPlan(arguments: inputs, out: options.out, cacheFolder: options.cacheFolder,
                      baseURL: options.page.pageURL, copiesAssets: !noCopy)
    }

    func run() async throws {
        if let missing = inputs.first(where: { !FileManager.default.isReadableFile(atPath: $0) }) {
            Diagnostics.error("cannot read \(missing)")
            throw ExitCode.failure
        }
        let firstPlan: LocalizationPlan
        do {
            firstPlan = try plan()
        } catch {
            throw error.reported()
        }
        let signals = StopSignals()
        let session: FetchSession
        do {
            session = try FetchSession(settings: options.settings)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode.failure
        }
        let watcher = PageWatcher(session: session)
        if !options.quiet {
            Diagnostics.note("imgcache: watching \(inputs.joined(separator: ", ")); Ctrl-C to stop")
        }
        let pause = Duration.seconds(interval)
        let command = self
        let polling = Task {
            var watched = WatchedFiles(firstPlan)
            var files = InputFileWatcher(paths: watched.paths) { !watched.isSiteFile($0) }
            for input in firstPlan.inputs { await watcher.pageChanged(input) }
            for copy in firstPlan.copies { await Self.copy(copy, with: session) }
            while !Task.isCancelled {
                try? await Task.sleep(for: pause)
                // Site folders are listed again: a new file is watched, and localised once still.
                if !firstPlan.sites.isEmpty, let fresh = try? command.plan() {
                    let (new, unlisted) = watched.merge(fresh)
                    for path in new where !files.watches(path) { files.add(path, followingLinks: !watched.isSiteFile(path)) }
                    // A file the listing leaves out that is still there (a symbolic link now, or
                    // behind one) is no longer the site's. One that is gone is left to the poll,
                    // which waits for it to stay gone before deleting its copy.
                    for path in unlisted where Self.isThere(path) {
                        await Self.skip(path, watched: &watched, files: &files, watcher: watcher)
                    }
                }
                for change in files.poll() {
                    switch change {
                    case .modified(let path):
                        switch watched.items[path] {
                        case .input(let input): await watcher.pageChanged(input)
                        case .copy(let copy): await Self.copy(copy, with: session)
                        case nil: break
                        }
                    case .removed(let path):
                        switch watched.items[path] {
                        case .input(let input):
                            await watcher.pageRemoved(input)
                            if input.site != nil { watched.items[path] = nil; files.remove(path) }
                        case .copy(let copy):
                            PageWatcher.removeOutput(copy.output)
                            watched.items[path] = nil
                            files.remove(path)
                        case nil: break
                        }
                    case .notRegular(let path):
                        if watched.isSiteFile(path) {
                            await Self.skip(path, watched: &watched, files: &files, watcher: watcher)
                        } else {
                            // Named on the command line: watched on, in case a file comes back.
                            Self.reportSkipped(path, followingLinks: true)
                        }
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

    /// Stops watching a site file that is no longer a regular file of the site, and says so once.
    /// Its last copy in --out stays (it was made while the file was the site's).
    private static func skip(_ path: String, watched: inout WatchedFiles, files: inout InputFileWatcher,
                             watcher: PageWatcher) async {
        reportSkipped(path)
        if case .input(let input) = watched.items[path] { await watcher.pageSkipped(input) }
        watched.items[path] = nil
        files.remove(path)
    }

    private static func reportSkipped(_ path: String, followingLinks: Bool = false) {
        let type = FileType(atPath: path, followingLinks: followingLinks)
        // Listed no more yet regular: reached through a folder that is now a symbolic link.
        let reason = type == .regular ? "no longer among the site folder's files" : type.notRegularReason
        Diagnostics.warn("skipping \(path): \(reason)")
    }

    /// Whether anything, even a dangling symbolic link, is at `path`.
    private static func isThere(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func copy(_ copy: SiteFileCopy, with session: FetchSession) async {
        do {
            try await session.copy(copy)
        } catch {
            Diagnostics.error("cannot copy \(error)")
        }
    }
}

/// What `watch` keeps an eye on, by source path: pages and stylesheets, and site files to copy.
private struct WatchedFiles {
    enum Item {
        case input(LocalizationInput)
        case copy(SiteFileCopy)
    }

    var items: [String: Item] = [:]

    init(_ plan: LocalizationPlan) {
        _ = merge(plan)
    }

    var paths: [String] { Array(items.keys) }

    /// Whether `path` is a file of a site folder (not one named on the command line).
    func isSiteFile(_ path: String) -> Bool {
        switch items[path] {
        case .input(let input): input.site != nil
        case .copy: true
        case nil: false
        }
    }

    /// Takes in a fresh plan's files; returns the paths that are new, and the site files watched
    /// that the plan no longer has.
    mutating func merge(_ plan: LocalizationPlan) -> (new: [String], unlisted: [String]) {
        var new: [String] = []
        var listed: Set<String> = []
        for input in plan.inputs {
            let path = input.path ?? input.name
            listed.insert(path)
            if items.updateValue(.input(input), forKey: path) == nil { new.append(path) }
        }
        for copy in plan.copies {
            listed.insert(copy.source)
            if items.updateValue(.copy(copy), forKey: copy.source) == nil { new.append(copy.source) }
        }
        return (new, items.keys.filter { !listed.contains($0) && isSiteFile($0) })
    }
}

extension WatchCommand: TakesInputList {
    var inputList: [String] {
        get { inputs }
        set { inputs = newValue }
    }
}
#endif
