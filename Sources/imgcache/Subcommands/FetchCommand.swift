#if CommandLine
import ArgumentParser
import Foundation
import ImgCache

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Downloads pages' images into a cache folder and writes the pages rewritten to use them.",
        discussion: """
            A folder is a whole site: every .html, .htm, .xhtml and .css file under it is rewritten \
            into the same place under --out, with its URL taken as --base-url joined with its path \
            in the folder (so relative references resolve as on the server). References to files \
            the folder already has are left as they are; every other file is copied (hard-linked \
            where possible; --no-copy turns that off), hidden files aside, so that --out works on \
            its own. Each file refers to the cache folder by the path from its own folder.

            All inputs share one downloader: each distinct image is fetched once, several files \
            are in progress at once (--parallel), and in build mode each file is written as soon \
            as its own images are settled.

            Exit status: 0 when every image was localised; 2 when some could not be (one line per \
            failure on standard error); 1 when a page or file could not be read or written; 64 for \
            a usage error.
            """
    )

    @Argument(help: "HTML or CSS files, site folders, or http(s) URLs.")
    var inputs: [String]

    @Option(help: "build: wait for downloads and rewrite what is cached; live: rewrite everything first, then download.")
    var mode: ModeArgument = .build

    @Option(help: "Pages and stylesheets read and rewritten at once (their images are fetched together).")
    var parallel: Int = 16

    @Flag(name: .customLong("no-copy"), help: "Do not copy a site folder's other files (scripts, fonts, local images) into --out.")
    var noCopy = false

    @OptionGroup var options: FetchOptions

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("Give at least one page: a file, a site folder or an http(s) URL.") }
        if parallel < 1 { throw ValidationError("--parallel must be at least 1.") }
    }

    func run() async throws {
        let plan: LocalizationPlan
        do {
            plan = try LocalizationPlan(arguments: inputs, out: options.out, cacheFolder: options.cacheFolder,
                                 baseURL: options.page.pageURL, copiesAssets: !noCopy)
        } catch {
            throw error.reported()
        }
        let session: FetchSession
        do {
            session = try FetchSession(settings: options.settings)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode.failure
        }
        let site = await session.run(plan, mode: mode.mode, filesAtOnce: parallel)
        await session.finish()

        var pages: [FetchManifest.Page] = []
        var ioFailed = !site.copyFailures.isEmpty
        var failures: [DownloadOutcome] = []
        var files: [FileLocalization] = []
        for failure in site.copyFailures { Diagnostics.error("cannot copy \(failure)") }
        for result in site.results {
            switch result {
            case .success(let file):
                pages.append(file.manifestRecord)
                failures += file.failures
                files.append(file)
            case .failure(let error as PageLoadError):
                Diagnostics.error(error.description)
                if let hint = FetchSession.hint(for: error.reason) { Diagnostics.note("imgcache: hint: \(hint)") }
                ioFailed = true
            case .failure(let error):
                Diagnostics.error("\(error)")
                ioFailed = true
            }
        }
        if !options.quiet { summarize(files, plan: plan) }
        do {
            try session.writeManifest(pages)
        } catch {
            Diagnostics.error("cannot write the manifest: \(error)")
            ioFailed = true
        }
        // An image shared by many pages failed once: say so once.
        var reported: Set<String> = []
        for failure in failures where reported.insert(failure.url).inserted {
            Diagnostics.note("imgcache: failed: \(failure.url): \(failure.failure?.description ?? "unknown error")")
        }
        if let hint = FetchSession.hint(for: failures) { Diagnostics.note("imgcache: hint: \(hint)") }
        IMGCacheCommand.exitSkippingTeardown(status: ioFailed ? ExitCode.failure.rawValue : failures.isEmpty ? 0 : 2)
    }

    /// One line per file given on its own; one line per site folder.
    private func summarize(_ files: [FileLocalization], plan: LocalizationPlan) {
        let siteRoots = plan.sites.map(\.root)
        var perSite: [String: (files: Int, images: Set<String>, failed: Set<String>)] = [:]
        for run in files {
            let input = run.input.name
            if let root = siteRoots.first(where: { input.hasPrefix(($0 as NSString).appendingPathComponent("")) }) {
                var entry = perSite[root, default: (0, [], [])]
                entry.files += 1
                entry.images.formUnion(run.outcomes.keys)
                entry.failed.formUnion(run.failures.map(\.url))
                perSite[root] = entry
            } else {
                Diagnostics.note(FetchSession.summaryLine(run))
            }
        }
        for site in plan.sites {
            guard let entry = perSite[site.root] else { continue }
            let copied = plan.copies.count { $0.source.hasPrefix((site.root as NSString).appendingPathComponent("")) }
            Diagnostics.note("\(site.root): \(entry.files) pages and stylesheets, \(entry.images.count) images"
                + " (\(entry.images.count - entry.failed.count) local, \(entry.failed.count) failed), \(copied) other files copied -> \(options.out)")
        }
    }
}

extension FetchCommand: TakesInputList {
    var inputList: [String] {
        get { inputs }
        set { inputs = newValue }
    }
}
#endif
