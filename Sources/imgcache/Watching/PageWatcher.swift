#if CommandLine
import Foundation
import ImgCache

/// Keeps pages localised while their files change (what `imgcache watch` runs): each change
/// rewrites the page at once (live mode) and fetches its new images; images already cached or
/// still being fetched for an earlier version are not fetched again.
actor PageWatcher {
    private let session: FetchSession
    /// Inputs by source path, in the order first seen.
    private var inputs: [String] = []
    private var known: [String: LocalizationInput] = [:]
    private var running: [String: Task<Void, Never>] = [:]
    private var generations: [String: Int] = [:]
    /// The latest finished run of each page.
    private var latest: [String: FileLocalization] = [:]
    /// Inputs whose latest version could not be read or written.
    private var unreadable: Set<String> = []

    /// Watches files through `session`.
    init(session: FetchSession) {
        self.session = session
    }

    /// Localises `input` again, superseding any run of an earlier version: that run's downloads go
    /// on (the new version probably wants most of the same images), but its result is not kept.
    func pageChanged(_ input: LocalizationInput) {
        let source = input.path ?? input.name
        if known.updateValue(input, forKey: source) == nil { inputs.append(source) }
        let generation = generations[source, default: 0] + 1
        generations[source] = generation
        running[source] = Task { await self.localize(input, generation: generation) }
    }

    /// Notes that an input file disappeared. A page given on its own keeps its last rewritten copy
    /// (it is probably being saved anew); a file of a site folder was deleted from the site, so
    /// its copy is deleted from the output too and it leaves the manifest.
    func pageRemoved(_ input: LocalizationInput) {
        guard input.site != nil else {
            Diagnostics.warn("\(input.name) is gone; its rewritten page stays; waiting for it to come back")
            return
        }
        let source = input.path ?? input.name
        generations[source, default: 0] += 1
        running[source]?.cancel()
        running[source] = nil
        latest[source] = nil
        unreadable.remove(source)
        known[source] = nil
        inputs.removeAll { $0 == source }
        // The command's inputs always have an output.
        let output = input.output ?? ""
        Self.removeOutput(output)
        if !session.settings.quiet { Diagnostics.note("imgcache: \(input.name) was deleted; so was \(output)") }
        writeManifest()
    }

    /// Forgets a site page that is no longer a regular file of the site (now a symbolic link): a
    /// run under way is dropped, and its last rewritten copy stays, in the manifest too.
    func pageSkipped(_ input: LocalizationInput) {
        let source = input.path ?? input.name
        generations[source, default: 0] += 1
        running[source]?.cancel()
        running[source] = nil
        unreadable.remove(source)
    }

    /// Deletes the output of a site file that was deleted (a rewritten file or a copy).
    static func removeOutput(_ path: String) {
        if unlink(path) != 0, errno != ENOENT {
            Diagnostics.error("cannot delete \(path): \(String(cString: strerror(errno)))")
        }
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
        return (runs.map(\.manifestRecord), runs.flatMap(\.failures), !unreadable.isEmpty)
    }

    private func localize(_ input: LocalizationInput, generation: Int) async {
        let source = input.path ?? input.name
        do {
            let run = try await session.localize(input, mode: .live)
            guard generations[source] == generation, !Task.isCancelled else { return }
            latest[source] = run
            unreadable.remove(source)
            if !session.settings.quiet { Diagnostics.note(FetchSession.summaryLine(run)) }
            for failure in run.failures {
                Diagnostics.note("imgcache: failed: \(failure.url): \(failure.failure?.description ?? "unknown error")")
            }
            writeManifest()
        } catch {
            guard generations[source] == generation else { return }
            unreadable.insert(source)
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
#endif
