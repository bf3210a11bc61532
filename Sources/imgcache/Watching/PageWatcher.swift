import ImgCache

/// Keeps pages localised while their files change (what `imgcache watch` runs): each change
/// rewrites the page at once (live mode) and fetches its new images; images already cached or
/// still being fetched for an earlier version are not fetched again.
actor PageWatcher {
    private let session: FetchSession
    private let inputs: [String]
    private var running: [String: Task<Void, Never>] = [:]
    private var generations: [String: Int] = [:]
    /// The latest finished run of each page.
    private var latest: [String: FetchSession.PageRun] = [:]
    /// Inputs whose latest version could not be read or written.
    private var unreadable: Set<String> = []

    /// Watches `inputs` (files) through `session`.
    init(session: FetchSession, inputs: [String]) {
        self.session = session
        self.inputs = inputs
    }

    /// Localises `input` again, superseding any run of an earlier version: that run's downloads go
    /// on (the new version probably wants most of the same images), but its result is not kept.
    func pageChanged(_ input: String) {
        let generation = generations[input, default: 0] + 1
        generations[input] = generation
        running[input] = Task { await self.localize(input, generation: generation) }
    }

    /// Notes that an input file disappeared; its last rewritten page stays as it is.
    func pageRemoved(_ input: String) {
        Diagnostics.warn("\(input) is gone; its rewritten page stays; waiting for it to come back")
    }

    /// Stops every run and download and waits until no write is under way.
    func stop() async {
        let tasks = Array(running.values)
        for task in tasks { task.cancel() }
        await session.cancelDownloads()
        for task in tasks { await task.value }
    }

    /// The pages' manifest entries, in input order, and the images that failed in their latest versions.
    var results: (pages: [FetchManifest.Page], failures: [DownloadOutcome], hadErrors: Bool) {
        let runs = inputs.compactMap { latest[$0] }
        return (runs.map(\.manifestPage), runs.flatMap(\.failures), !unreadable.isEmpty)
    }

    private func localize(_ input: String, generation: Int) async {
        do {
            let run = try await session.localize(input, mode: .live)
            guard generations[input] == generation, !Task.isCancelled else { return }
            latest[input] = run
            unreadable.remove(input)
            if !session.settings.quiet { Diagnostics.note(run.summaryLine) }
            for failure in run.failures {
                Diagnostics.note("imgcache: failed: \(failure.url): \(failure.error ?? "unknown error")")
            }
            writeManifest()
        } catch {
            guard generations[input] == generation else { return }
            unreadable.insert(input)
            Diagnostics.error("\(error)")
        }
    }

    private func writeManifest() {
        do {
            try session.writeManifest(results.pages)
        } catch {
            Diagnostics.error("cannot write the manifest: \(error)")
        }
    }
}
